import type { HtmlTagDescriptor, Plugin } from 'vite';

export interface DocumentHeadOptions {
  /** The browser's toolbar colour on phones. */
  themeColor: string;
  /** Default `width=device-width, initial-scale=1`. */
  viewport?: string;
}

/**
 * The head every web app's index.html starts with, so each page states only what is its own
 * (lang, title, description, referrer). The entry is always src/main.tsx and the icon
 * src/favicon.svg. Injected before Vite reads the HTML ('pre'), so the script is bundled and the
 * icon hashed exactly as if they were written in the file; nothing inline, which the CSP forbids.
 */
export function documentHead(options: DocumentHeadOptions): Plugin {
  const tags: HtmlTagDescriptor[] = [
    { tag: 'meta', attrs: { charset: 'utf-8' } },
    { tag: 'meta', attrs: { name: 'viewport', content: options.viewport ?? 'width=device-width, initial-scale=1' } },
    { tag: 'meta', attrs: { name: 'theme-color', content: options.themeColor } },
    { tag: 'link', attrs: { rel: 'icon', type: 'image/svg+xml', href: './src/favicon.svg' } },
    { tag: 'script', attrs: { type: 'module', src: './src/main.tsx' } },
  ].map((tag) => ({ ...tag, injectTo: 'head-prepend' as const }));
  return {
    name: 'svc-document-head',
    transformIndexHtml: { order: 'pre', handler: () => tags },
  };
}
