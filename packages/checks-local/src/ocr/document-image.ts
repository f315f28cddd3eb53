/**
 * Turning an uploaded photo into what tesseract reads well: greyscale, a known width (so MRZ
 * characters are about 25-30 px wide whatever the camera resolution), and cut into the MRZ band
 * at the bottom and the printed (visual) zone above it. Cropping matters: tesseract in block mode
 * reads faster and makes fewer mistakes on the band alone than on the whole page.
 */
import type { Image } from '@napi-rs/canvas';
import { loadCanvas, loadedCanvas } from '../canvas-module.js';
import { ManualReviewRequiredError } from '../contract.js';
import type { MrzFormat } from './mrz-layout.js';

/** Widths the page is scaled to, per layout: a passport page is 125 mm wide, a card 85.6 mm. */
const PAGE_WIDTH: Record<MrzFormat, number> = { TD3: 1250, TD1: 1030 };
/** The share of the page height, from the bottom, that holds the MRZ (with room for a tilted photo). */
const BAND_SHARE: Record<MrzFormat, number> = { TD3: 0.3, TD1: 0.42 };
const MAX_PIXELS = 40_000_000;
/**
 * The passport's printed zone is read a little smaller than its MRZ band (the LSTM engine's time
 * grows with the pixels); much smaller and the small labels ("Date of birth") stop reading, and
 * the date-of-birth cross-check with them.
 */
const VISUAL_ZONE_WIDTH: Record<MrzFormat, number> = { TD3: 1000, TD1: 1030 };
/**
 * ICAO 9303 puts the passport photo in the left part of the data page and the printed fields to
 * its right: reading only those saves the LSTM engine a third of the page (and the garbage it
 * reads in a face). ID cards have no fixed place for them, so the whole width is read.
 */
const VISUAL_ZONE_LEFT: Record<MrzFormat, number> = { TD3: 0.3, TD1: 0 };

export interface PreparedPage {
  mrzBand: Buffer;
  visualZone: Buffer;
}

export async function decodeDocumentImage(bytes: Buffer): Promise<Image> {
  const { loadImage } = await loadCanvas();
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

/** A part of the page, as shares of its width and height. */
interface Region {
  left: number;
  top: number;
  bottom: number;
}

/**
 * One region of `image`, scaled as if the whole page were `pageWidth` wide, as a greyscale PGM:
 * tesseract's Leptonica reads it directly, and writing it takes a few ms where @napi-rs/canvas's
 * PNG encoder takes about 300 ms for a page.
 */
function greyRegion(image: Image, pageWidth: number, region: Region): Buffer {
  const scale = pageWidth / image.width;
  const sourceLeft = Math.floor(image.width * region.left);
  const sourceTop = Math.floor(image.height * region.top);
  const sourceWidth = Math.max(1, image.width - sourceLeft);
  const sourceHeight = Math.max(1, Math.ceil(image.height * region.bottom) - sourceTop);
  const width = Math.max(1, Math.round(sourceWidth * scale));
  const height = Math.max(1, Math.round(sourceHeight * scale));
  const canvas = loadedCanvas().createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = 'high';
  context.drawImage(image, sourceLeft, sourceTop, sourceWidth, sourceHeight, 0, 0, width, height);
  const rgba = context.getImageData(0, 0, width, height).data;
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii');
  const pgm = Buffer.alloc(header.length + width * height);
  header.copy(pgm);
  // ITU-R BT.601 luma in integer arithmetic (weights 77/150/29 out of 256).
  for (let source = 0, target = header.length; source < rgba.length; source += 4, target++) {
    pgm[target] = (rgba[source]! * 77 + rgba[source + 1]! * 150 + rgba[source + 2]! * 29) >> 8;
  }
  return pgm;
}

/** The MRZ band alone, as the full read crops it. */
export function mrzBandOf(image: Image, format: MrzFormat): Buffer {
  return greyRegion(image, PAGE_WIDTH[format], { left: 0, top: 1 - BAND_SHARE[format], bottom: 1 });
}

export function preparePage(image: Image, format: MrzFormat): PreparedPage {
  const band = BAND_SHARE[format];
  return {
    mrzBand: mrzBandOf(image, format),
    visualZone: greyRegion(image, VISUAL_ZONE_WIDTH[format], { left: VISUAL_ZONE_LEFT[format], top: 0, bottom: 1 - band + 0.05 }),
  };
}
