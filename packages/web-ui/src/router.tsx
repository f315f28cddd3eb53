import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * A tiny History-API router: each app lives below its base path (/portal, /console), identity
 * answers every path there with the same page, and the app picks the screen from location.pathname.
 */
let BASE_PATH = '/portal';

/** Set once by an app's main before the first render. */
export function setBasePath(base: string): void {
  BASE_PATH = base;
}

export interface PortalLocation {
  /** Below /portal, e.g. '/cases/abc'; '' or '/' for the portal's root. */
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());
window.addEventListener('popstate', notify);

function readLocation(): PortalLocation {
  const pathname = window.location.pathname;
  const path = pathname.startsWith(BASE_PATH) ? pathname.slice(BASE_PATH.length) : pathname;
  return { path: path === '/' ? '' : path.replace(/\/+$/, ''), query: new URLSearchParams(window.location.search) };
}

/** '/cases?x=1' → '/portal/cases?x=1' (below the app's base); an href already below it is kept. */
export function portalHref(href: string): string {
  if (href === BASE_PATH || href.startsWith(`${BASE_PATH}/`) || href.startsWith(`${BASE_PATH}?`)) return href;
  return `${BASE_PATH}${href.startsWith('/') || href === '' ? href : `/${href}`}`;
}

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  const target = portalHref(href);
  if (target === `${window.location.pathname}${window.location.search}`) return;
  if (options.replace) window.history.replaceState(null, '', target);
  else window.history.pushState(null, '', target);
  notify();
  // A new screen starts at the top, as a page load would.
  if (!options.replace) window.scrollTo(0, 0);
}

/** Updates the URL's query (replace, no history entry); undefined or '' removes a parameter. */
export function setQuery(changes: Record<string, string | undefined>): void {
  const query = new URLSearchParams(window.location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === '') query.delete(name);
    else query.set(name, value);
  }
  const text = query.toString();
  window.history.replaceState(null, '', `${window.location.pathname}${text ? `?${text}` : ''}`);
  notify();
}

export function useLocation(): PortalLocation {
  const [location, setLocation] = useState(readLocation);
  useEffect(() => {
    const update = () => setLocation(readLocation());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** A real <a href> (open in a new tab, copy the link), which navigates in place on a plain click. */
export function Link(props: { href: string; class?: string; children: ComponentChildren; 'aria-current'?: 'page' | undefined; title?: string }) {
  const href = portalHref(props.href);
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} class={props.class} onClick={onClick} aria-current={props['aria-current']} title={props.title}>
      {props.children}
    </a>
  );
}
