/**
 * A quick look at a still before it is uploaded: too dark (mean luminance) or too blurred (the
 * variance of the Laplacian, which falls as edges soften). Measured on a copy at most 480 px
 * wide, so a 12-megapixel photo costs a few milliseconds and the thresholds do not depend on the
 * camera's resolution. Both take the region that will be sent (the document guide's, or the
 * whole image), so the hint judges what the server gets.
 */
import type { Region } from './document-guide-region.js';

export type FrameProblem = 'tooDark' | 'tooBlurry';

const ANALYSIS_WIDTH = 480;
/** Mean luminance (0–255) below which a document is too dark to read. */
const MIN_BRIGHTNESS = 45;
/** Variance of the Laplacian below which the frame is blurred; sharp document photos score in the hundreds. */
const MIN_SHARPNESS = 60;

export function measureFrame(source: CanvasImageSource, region: Region): { brightness: number; sharpness: number } {
  const scale = Math.min(1, ANALYSIS_WIDTH / region.width);
  const w = Math.max(3, Math.round(region.width * scale));
  const h = Math.max(3, Math.round(region.height * scale));
  const canvas = document.createElement('canvas');
  canvas.width = w;
  canvas.height = h;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) return { brightness: 255, sharpness: Number.POSITIVE_INFINITY };
  context.drawImage(source, region.x, region.y, region.width, region.height, 0, 0, w, h);
  const { data } = context.getImageData(0, 0, w, h);
  const gray = new Float32Array(w * h);
  let sum = 0;
  for (let i = 0; i < w * h; i += 1) {
    const value = 0.299 * data[i * 4]! + 0.587 * data[i * 4 + 1]! + 0.114 * data[i * 4 + 2]!;
    gray[i] = value;
    sum += value;
  }
  let count = 0;
  let mean = 0;
  let squares = 0;
  for (let y = 1; y < h - 1; y += 1) {
    for (let x = 1; x < w - 1; x += 1) {
      const i = y * w + x;
      const laplacian = gray[i - w]! + gray[i + w]! + gray[i - 1]! + gray[i + 1]! - 4 * gray[i]!;
      count += 1;
      const delta = laplacian - mean;
      mean += delta / count;
      squares += delta * (laplacian - mean);
    }
  }
  return { brightness: sum / (w * h), sharpness: count > 1 ? squares / (count - 1) : 0 };
}

export function frameProblem(source: CanvasImageSource, region: Region): FrameProblem | null {
  const { brightness, sharpness } = measureFrame(source, region);
  if (brightness < MIN_BRIGHTNESS) return 'tooDark';
  if (sharpness < MIN_SHARPNESS) return 'tooBlurry';
  return null;
}

/** `region` of the source as a JPEG at most `maxSide` px on its longer side: enough for the checks (the MRZ stays legible at 1600). */
export function downscaledJpeg(source: CanvasImageSource, region: Region, maxSide: number): Promise<Blob> {
  const scale = Math.min(1, maxSide / Math.max(region.width, region.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(region.width * scale));
  canvas.height = Math.max(1, Math.round(region.height * scale));
  canvas.getContext('2d')?.drawImage(source, region.x, region.y, region.width, region.height, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the browser could not encode the photo'))), 'image/jpeg', 0.92));
}
