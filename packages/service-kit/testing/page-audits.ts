/// <reference lib="dom" />
// Audits that run inside the page (passed to page.evaluate, so each function is self-contained):
// Lighthouse-style accessibility checks, without a Lighthouse download (browsers cannot be fetched here).

/** Form controls, buttons and links without an accessible name (label, aria-label(ledby) or text). */
export function unlabelledControls(): string[] {
  const missing: string[] = [];
  for (const element of Array.from(document.querySelectorAll<HTMLElement>('input, select, textarea, button, a[href], [role="img"]'))) {
    const text = (value: string | null | undefined) => (value ?? '').trim().length > 0;
    const byAria = text(element.getAttribute('aria-label')) || (element.getAttribute('aria-labelledby') ?? '').split(/\s+/).some((id) => text(document.getElementById(id)?.textContent));
    const labels = (element as HTMLInputElement).labels;
    const byLabel = labels ? Array.from(labels).some((label) => text(label.textContent)) : false;
    const byContent = (element.tagName === 'BUTTON' || element.tagName === 'A') && text(element.textContent);
    if (!byAria && !byLabel && !byContent) missing.push(element.outerHTML.slice(0, 160));
  }
  return missing;
}

/**
 * Text whose contrast against its effective background is below WCAG AA: 4.5:1, or 3:1 for
 * large text (24 px, or 18.66 px bold). Backgrounds are found by walking up to the first opaque one.
 */
export function lowContrastText(): string[] {
  const parse = (color: string): [number, number, number, number] => {
    const parts = color.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0];
    return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 1];
  };
  const luminance = ([red, green, blue]: [number, number, number, number]) => {
    const channel = (value: number) => {
      const scaled = value / 255;
      return scaled <= 0.03928 ? scaled / 12.92 : ((scaled + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue);
  };
  const backgroundOf = (start: Element): [number, number, number, number] => {
    for (let element: Element | null = start; element; element = element.parentElement) {
      const background = parse(getComputedStyle(element).backgroundColor);
      if (background[3] > 0.9) return background;
    }
    return [255, 255, 255, 1];
  };
  const failures: string[] = [];
  for (const element of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
    const ownText = Array.from(element.childNodes).some((node) => node.nodeType === Node.TEXT_NODE && (node.textContent ?? '').trim().length > 0);
    if (!ownText) continue;
    const rect = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    // Skipped: not rendered, or the visually-hidden pattern (1×1 px, read by screen readers only).
    if (rect.width <= 1 || rect.height <= 1 || style.visibility === 'hidden' || style.display === 'none' || element.closest('details:not([open]) > :not(summary)')) continue;
    const foreground = parse(style.color);
    const background = backgroundOf(element);
    const [lighter, darker] = [luminance(foreground), luminance(background)].sort((left, right) => right - left) as [number, number];
    const ratio = (lighter + 0.05) / (darker + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) failures.push(`${ratio.toFixed(2)}:1 "${(element.textContent ?? '').trim().slice(0, 40)}" (${style.color} on rgb(${background.slice(0, 3).join(',')}))`);
  }
  return failures;
}

/** Bytes of JavaScript and CSS as transferred (compressed), from the Resource Timing entries. */
export function transferredScriptAndStyleBytes(): { bytes: number; files: string[] } {
  const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
  const assets = entries.filter((entry) => /\.(js|css)(\?|$)/.test(entry.name));
  return { bytes: assets.reduce((sum, entry) => sum + entry.encodedBodySize, 0), files: assets.map((entry) => `${entry.name} ${entry.encodedBodySize}`) };
}

/** Canvas pixels of one series colour (within a small tolerance): proof that uPlot drew that series. */
export function chartPixelsOfColour([red, green, blue]: [number, number, number]): number {
  const canvas = document.querySelector<HTMLCanvasElement>('[data-testid="history-chart"] canvas');
  const context = canvas?.getContext('2d');
  if (!canvas || !context) return 0;
  const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
  let matching = 0;
  for (let index = 0; index < data.length; index += 4) {
    const close = Math.abs((data[index] ?? 0) - red) + Math.abs((data[index + 1] ?? 0) - green) + Math.abs((data[index + 2] ?? 0) - blue) < 40;
    if (close && (data[index + 3] ?? 0) > 200) matching += 1;
  }
  return matching;
}
