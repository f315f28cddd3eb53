/**
 * Turning an uploaded photo into what tesseract reads well: greyscale, a known width (so MRZ
 * characters are about 25-30 px wide whatever the camera resolution), and cut into the MRZ band
 * at the bottom and the printed (visual) zone above it. Cropping matters: tesseract in block mode
 * reads faster and makes fewer mistakes on the band alone than on the whole page.
 */
import { createCanvas, loadImage, type Image } from '@napi-rs/canvas';
import { ManualReviewRequiredError } from '../contract.js';
import type { MrzFormat } from './mrz-layout.js';

/** Widths the page is scaled to, per layout: a passport page is 125 mm wide, a card 85.6 mm. */
const PAGE_WIDTH: Record<MrzFormat, number> = { TD3: 1250, TD1: 1030 };
/** The share of the page height, from the bottom, that holds the MRZ (with room for a tilted photo). */
const BAND_SHARE: Record<MrzFormat, number> = { TD3: 0.3, TD1: 0.42 };
const MAX_PIXELS = 40_000_000;

export interface PreparedPage {
  mrzBand: Buffer;
  visualZone: Buffer;
}

export async function decodeDocumentImage(bytes: Buffer): Promise<Image> {
  let image: Image;
  try {
    image = await loadImage(bytes);
  } catch (error) {
    throw new ManualReviewRequiredError('OCR: the document image could not be read as a JPEG, PNG or WebP picture', { cause: error });
  }
  if (!image.width || !image.height) throw new ManualReviewRequiredError('OCR: the document image could not be read as a JPEG, PNG or WebP picture');
  if (image.width * image.height > MAX_PIXELS) throw new ManualReviewRequiredError('OCR: the document image is too large to read (over 40 megapixels)');
  return image;
}

/** The part of `image` between `fromShare` and `toShare` of its height, scaled to `width`, greyscale PNG. */
async function greyStrip(image: Image, width: number, fromShare: number, toShare: number): Promise<Buffer> {
  const scale = width / image.width;
  const sourceTop = Math.floor(image.height * fromShare);
  const sourceHeight = Math.max(1, Math.ceil(image.height * toShare) - sourceTop);
  const canvas = createCanvas(width, Math.max(1, Math.round(sourceHeight * scale)));
  const context = canvas.getContext('2d');
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = 'high';
  context.drawImage(image, 0, sourceTop, image.width, sourceHeight, 0, 0, canvas.width, canvas.height);
  const pixels = context.getImageData(0, 0, canvas.width, canvas.height);
  const data = pixels.data;
  for (let index = 0; index < data.length; index += 4) {
    const grey = Math.round(0.299 * data[index]! + 0.587 * data[index + 1]! + 0.114 * data[index + 2]!);
    data[index] = grey;
    data[index + 1] = grey;
    data[index + 2] = grey;
  }
  context.putImageData(pixels, 0, 0);
  return canvas.encode('png');
}

export async function preparePage(image: Image, format: MrzFormat): Promise<PreparedPage> {
  const width = PAGE_WIDTH[format];
  const band = BAND_SHARE[format];
  const [mrzBand, visualZone] = await Promise.all([greyStrip(image, width, 1 - band, 1), greyStrip(image, width, 0, 1 - band + 0.05)]);
  return { mrzBand, visualZone };
}
