/**
 * Where the document guide drawn over the viewfinder falls in the camera's own pixels, so the page
 * sends the part the user lined the document up in rather than the whole frame (decision 0804).
 * Pure arithmetic: no DOM, unit-tested without a browser.
 */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Added on each side, as a share of the guide's own width (left and right) and height (top and
 * bottom): a document held a little past the guide's line keeps its edge and its MRZ. Equal
 * shares keep the guide's shape.
 */
export const GUIDE_MARGIN = 0.04;

/** The whole frame: what is sent when the guide cannot be placed (file picker, a view not laid out yet). */
export function wholeFrame(width: number, height: number): Region {
  return { x: 0, y: 0, width, height };
}

const usable = (...values: number[]) => values.every((value) => Number.isFinite(value) && value > 0);

/**
 * The guide's rectangle (CSS pixels, relative to the video element's box of `viewWidth` ×
 * `viewHeight`) mapped into the video's `videoWidth` × `videoHeight` pixels, grown by `margin` on
 * each side and clamped to the frame, in whole pixels. The video is shown with `object-fit: cover`
 * centred: scaled by the larger of the two ratios, so it fills the view, and the overflow cut
 * equally from both ends of one axis.
 */
export function documentGuideRegion(videoWidth: number, videoHeight: number, viewWidth: number, viewHeight: number, guide: Region, margin = GUIDE_MARGIN): Region {
  if (!usable(videoWidth, videoHeight, viewWidth, viewHeight, guide.width, guide.height)) return wholeFrame(videoWidth, videoHeight);
  const scale = Math.max(viewWidth / videoWidth, viewHeight / videoHeight);
  // Where the video's top-left corner lands in the view: at or left of / above the view's own.
  const offsetX = (viewWidth - videoWidth * scale) / 2;
  const offsetY = (viewHeight - videoHeight * scale) / 2;
  const left = (guide.x - margin * guide.width - offsetX) / scale;
  const top = (guide.y - margin * guide.height - offsetY) / scale;
  const right = (guide.x + (1 + margin) * guide.width - offsetX) / scale;
  const bottom = (guide.y + (1 + margin) * guide.height - offsetY) / scale;
  const x = Math.max(0, Math.floor(left));
  const y = Math.max(0, Math.floor(top));
  const width = Math.min(videoWidth, Math.ceil(right)) - x;
  const height = Math.min(videoHeight, Math.ceil(bottom)) - y;
  // A guide entirely outside the frame leaves nothing to send: send the frame rather than an empty photo.
  if (width <= 0 || height <= 0) return wholeFrame(videoWidth, videoHeight);
  return { x, y, width, height };
}
