/**
 * JPEG, PNG and WebP evidence decoded to RGB pixels with @napi-rs/canvas (prebuilt, no fetch,
 * no temporary files). Large photos are scaled down first: the face models work on 256 px
 * crops, and a 12-megapixel selfie would only cost memory and copy time.
 */
import { loadCanvas } from '../canvas-module.js';
import { ManualReviewRequiredError } from '../contract.js';
import { imageDimensions } from './image-dimensions.js';
import type { RgbImage } from './worker-protocol.js';

export const MAX_IMAGE_SIDE = 1600;
/** 50 megapixels: more than any phone photo; beyond it the header is not believed worth decoding. */
export const MAX_IMAGE_PIXELS = 50_000_000;

/** RGBA (canvas) to RGB (what the face worker takes). */
export function rgbaToRgb(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Uint8Array {
  const rgb = new Uint8Array(width * height * 3);
  for (let pixel = 0, source = 0, target = 0; pixel < width * height; pixel++, source += 4, target += 3) {
    rgb[target] = rgba[source]!;
    rgb[target + 1] = rgba[source + 1]!;
    rgb[target + 2] = rgba[source + 2]!;
  }
  return rgb;
}

/** `what` names the evidence in the reason ("the selfie", "the document"). */
export async function decodeImage(bytes: Buffer, what: string): Promise<RgbImage> {
  const { createCanvas, loadImage } = await loadCanvas();
  const declared = imageDimensions(bytes);
  if (declared && declared.width * declared.height > MAX_IMAGE_PIXELS) {
    throw new ManualReviewRequiredError(`Face match: ${what} is too large an image to check`);
  }
  let image: Awaited<ReturnType<typeof loadImage>>;
  try {
    image = await loadImage(bytes);
  } catch (error) {
    throw new ManualReviewRequiredError(`Face match: ${what} could not be read as an image`, { cause: error });
  }
  if (!image.width || !image.height) throw new ManualReviewRequiredError(`Face match: ${what} could not be read as an image`);
  const scale = Math.min(1, MAX_IMAGE_SIDE / Math.max(image.width, image.height));
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0, width, height);
  return { width, height, rgb: rgbaToRgb(context.getImageData(0, 0, width, height).data, width, height) };
}
