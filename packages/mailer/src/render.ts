/** What a template says; the layout (text and HTML parts, direction, styles) is the mailer's. */
export interface MailContent {
  subject: string;
  /** Shown first, e.g. "Hello,". */
  greeting?: string;
  paragraphs: string[];
  /** The one link the mail exists to deliver, as a button in HTML and a bare URL in text. */
  action?: { label: string; url: string };
  /** Below the action: why the recipient got this mail, what to do if it was not them. */
  footnote?: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/**
 * Languages written right to left (Arabic, Sorani Kurdish in Arabic script, Persian, Hebrew, Urdu). `ku` is
 * here because the services that use it (fx) mean Sorani by it and call Kurmanji `kmr`.
 */
const RIGHT_TO_LEFT = new Set(['ar', 'ckb', 'ku', 'fa', 'he', 'ur', 'ku-arab']);

export function isRightToLeft(language: string): boolean {
  return RIGHT_TO_LEFT.has(language.toLowerCase());
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/**
 * The plain-text and HTML parts of one mail. Inline styles only (mail clients drop <style> and
 * external sheets), no images and nothing fetched on opening, so nothing tracks the reader.
 */
export function renderMail(content: MailContent, language: string): RenderedMail {
  const direction = isRightToLeft(language) ? 'rtl' : 'ltr';
  const align = direction === 'rtl' ? 'right' : 'left';
  const text = [
    ...(content.greeting ? [content.greeting, ''] : []),
    ...content.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...(content.action ? [`${content.action.label}:`, content.action.url, ''] : []),
    ...(content.footnote ? ['--', content.footnote] : []),
  ]
    .join('\n')
    .trimEnd();
  const paragraph = (value: string) => `<p style="margin:0 0 16px 0;font-size:16px;line-height:1.5;color:#1f2933;">${escapeHtml(value)}</p>`;
  const action = content.action
    ? `<p style="margin:24px 0;"><a href="${escapeHtml(content.action.url)}" style="display:inline-block;padding:12px 20px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px;font-size:16px;">${escapeHtml(content.action.label)}</a></p>` +
      `<p style="margin:0 0 16px 0;font-size:13px;line-height:1.5;color:#52606d;word-break:break-all;" dir="ltr">${escapeHtml(content.action.url)}</p>`
    : '';
  const footnote = content.footnote ? `<p style="margin:24px 0 0 0;padding-top:16px;border-top:1px solid #e4e7eb;font-size:13px;line-height:1.5;color:#52606d;">${escapeHtml(content.footnote)}</p>` : '';
  const html = `<!doctype html>
<html lang="${escapeHtml(language)}" dir="${direction}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:24px;background:#f5f7fa;font-family:-apple-system,'Segoe UI',Tahoma,Arial,sans-serif;">
<div dir="${direction}" style="max-width:560px;margin:0 auto;padding:24px;background:#ffffff;border-radius:8px;text-align:${align};">
${content.greeting ? paragraph(content.greeting) : ''}${content.paragraphs.map(paragraph).join('')}${action}${footnote}
</div>
</body>
</html>
`;
  return { subject: content.subject, text, html };
}
