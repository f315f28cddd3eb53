/**
 * Finding the card in a photo and warping it flat. The card is the large bright quadrilateral on
 * a darker surface: pixels brighter than the image's Otsu threshold, whose four extreme points
 * along the diagonals are its corners; a homography maps them onto the 1000 × 630 template. An
 * image that is nearly all card (a scan) is only resized.
 */
import { createCanvas, loadImage, type ImageData } from '@napi-rs/canvas';
import { CARD_HEIGHT, CARD_WIDTH } from './card-layout.js';

export interface GrayImage {
  width: number;
  height: number;
  /** Luminance 0–255, row by row. */
  pixels: Uint8ClampedArray;
}

function gray(data: ImageData): GrayImage {
  const pixels = new Uint8ClampedArray(data.width * data.height);
  for (let index = 0; index < pixels.length; index += 1) {
    pixels[index] = (data.data[index * 4]! * 299 + data.data[index * 4 + 1]! * 587 + data.data[index * 4 + 2]! * 114) / 1000;
  }
  return { width: data.width, height: data.height, pixels };
}

export function otsuThreshold(pixels: ArrayLike<number>): number {
  const histogram = new Array<number>(256).fill(0);
  for (let index = 0; index < pixels.length; index += 1) histogram[pixels[index]!]! += 1;
  let total = 0;
  for (let level = 0; level < 256; level += 1) total += level * histogram[level]!;
  let best = 127;
  let bestVariance = -1;
  let weight = 0;
  let sum = 0;
  for (let level = 0; level < 256; level += 1) {
    weight += histogram[level]!;
    if (weight === 0 || weight === pixels.length) continue;
    sum += level * histogram[level]!;
    const meanLow = sum / weight;
    const meanHigh = (total - sum) / (pixels.length - weight);
    const variance = weight * (pixels.length - weight) * (meanLow - meanHigh) ** 2;
    if (variance > bestVariance) {
      bestVariance = variance;
      best = level;
    }
  }
  return best;
}

type Point = [number, number];

function cardCorners(image: GrayImage): Point[] | null {
  const threshold = otsuThreshold(image.pixels);
  let bright = 0;
  let topLeft: Point = [0, 0], topRight: Point = [0, 0], bottomRight: Point = [0, 0], bottomLeft: Point = [0, 0];
  let minSum = Infinity, maxSum = -Infinity, minDiff = Infinity, maxDiff = -Infinity;
  for (let y = 0; y < image.height; y += 2) {
    for (let x = 0; x < image.width; x += 2) {
      if (image.pixels[y * image.width + x]! <= threshold) continue;
      bright += 1;
      if (x + y < minSum) { minSum = x + y; topLeft = [x, y]; }
      if (x + y > maxSum) { maxSum = x + y; bottomRight = [x, y]; }
      if (x - y > maxDiff) { maxDiff = x - y; topRight = [x, y]; }
      if (x - y < minDiff) { minDiff = x - y; bottomLeft = [x, y]; }
    }
  }
  // Nearly all bright: the image is the card itself.
  if (bright / ((image.width * image.height) / 4) > 0.9) return null;
  return [topLeft, topRight, bottomRight, bottomLeft];
}

/** The homography taking the template's corners to the photo's (solved by Gaussian elimination). */
function homography(to: Point[]): number[] {
  const from: Point[] = [[0, 0], [CARD_WIDTH, 0], [CARD_WIDTH, CARD_HEIGHT], [0, CARD_HEIGHT]];
  const rows: number[][] = [];
  for (let index = 0; index < 4; index += 1) {
    const [x, y] = from[index]!;
    const [u, v] = to[index]!;
    rows.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    rows.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let column = 0; column < 8; column += 1) {
    let pivot = column;
    for (let row = column + 1; row < 8; row += 1) if (Math.abs(rows[row]![column]!) > Math.abs(rows[pivot]![column]!)) pivot = row;
    [rows[column], rows[pivot]] = [rows[pivot]!, rows[column]!];
    for (let row = 0; row < 8; row += 1) {
      if (row === column) continue;
      const factor = rows[row]![column]! / rows[column]![column]!;
      for (let entry = column; entry < 9; entry += 1) rows[row]![entry]! -= factor * rows[column]![entry]!;
    }
  }
  return [...rows.map((row, index) => row[8]! / row[index]!), 1];
}

/** The card, flat, 1000 × 630 grayscale. */
export async function flattenCard(bytes: Buffer): Promise<GrayImage> {
  const image = await loadImage(bytes);
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const photo = gray(context.getImageData(0, 0, image.width, image.height));
  const corners = cardCorners(photo) ?? [[0, 0], [photo.width - 1, 0], [photo.width - 1, photo.height - 1], [0, photo.height - 1]];
  const h = homography(corners);
  const pixels = new Uint8ClampedArray(CARD_WIDTH * CARD_HEIGHT);
  for (let y = 0; y < CARD_HEIGHT; y += 1) {
    for (let x = 0; x < CARD_WIDTH; x += 1) {
      const w = h[6]! * x + h[7]! * y + h[8]!;
      const u = (h[0]! * x + h[1]! * y + h[2]!) / w;
      const v = (h[3]! * x + h[4]! * y + h[5]!) / w;
      const u0 = Math.min(Math.max(Math.floor(u), 0), photo.width - 2);
      const v0 = Math.min(Math.max(Math.floor(v), 0), photo.height - 2);
      const fu = Math.min(Math.max(u - u0, 0), 1);
      const fv = Math.min(Math.max(v - v0, 0), 1);
      const at = (px: number, py: number) => photo.pixels[py * photo.width + px]!;
      pixels[y * CARD_WIDTH + x] = (at(u0, v0) * (1 - fu) + at(u0 + 1, v0) * fu) * (1 - fv) + (at(u0, v0 + 1) * (1 - fu) + at(u0 + 1, v0 + 1) * fu) * fv;
    }
  }
  return { width: CARD_WIDTH, height: CARD_HEIGHT, pixels };
}

/** A region of a gray image, optionally scaled, as PNG bytes (what tesseract reads). */
export function cropPng(image: GrayImage, box: { x: number; y: number; width: number; height: number }, scale = 1): Buffer {
  const canvas = createCanvas(Math.round(box.width * scale), Math.round(box.height * scale));
  const source = createCanvas(box.width, box.height);
  const data = source.getContext('2d').createImageData(box.width, box.height);
  for (let y = 0; y < box.height; y += 1) {
    for (let x = 0; x < box.width; x += 1) {
      const value = image.pixels[(box.y + y) * image.width + box.x + x] ?? 255;
      const offset = (y * box.width + x) * 4;
      data.data[offset] = value;
      data.data[offset + 1] = value;
      data.data[offset + 2] = value;
      data.data[offset + 3] = 255;
    }
  }
  source.getContext('2d').putImageData(data, 0, 0);
  const context = canvas.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.drawImage(source, 0, 0, canvas.width, canvas.height);
  return canvas.toBuffer('image/png');
}

export function cropGray(image: GrayImage, box: { x: number; y: number; width: number; height: number }): GrayImage {
  const pixels = new Uint8ClampedArray(box.width * box.height);
  for (let y = 0; y < box.height; y += 1) for (let x = 0; x < box.width; x += 1) pixels[y * box.width + x] = image.pixels[(box.y + y) * image.width + box.x + x] ?? 255;
  return { width: box.width, height: box.height, pixels };
}

/**
 * A field's ink, cut tight with a white margin: the pixels darker than the crop's Otsu threshold
 * (the guilloche rings are lighter and drop out), black on white when `binary`, otherwise the gray
 * values stretched so the threshold maps near white. Null when the box holds no ink. Tesseract
 * returns nothing at all for some short words in the wide value box, and reads them in this one.
 */
export function inkCrop(image: GrayImage, box: { x: number; y: number; width: number; height: number }, binary: boolean, margin = 12): GrayImage | null {
  const crop = cropGray(image, box);
  const threshold = otsuThreshold(crop.pixels);
  let left = crop.width, right = -1, top = crop.height, bottom = -1;
  for (let y = 0; y < crop.height; y += 1) {
    for (let x = 0; x < crop.width; x += 1) {
      if (crop.pixels[y * crop.width + x]! >= threshold) continue;
      left = Math.min(left, x); right = Math.max(right, x); top = Math.min(top, y); bottom = Math.max(bottom, y);
    }
  }
  if (right < 0) return null;
  const width = right - left + 1 + 2 * margin;
  const height = bottom - top + 1 + 2 * margin;
  const pixels = new Uint8ClampedArray(width * height).fill(255);
  const stretch = 255 / Math.max(threshold + 30, 1);
  for (let y = top; y <= bottom; y += 1) {
    for (let x = left; x <= right; x += 1) {
      const value = crop.pixels[y * crop.width + x]!;
      pixels[(y - top + margin) * width + x - left + margin] = binary ? (value < threshold ? 0 : 255) : Math.min(255, Math.round(value * stretch));
    }
  }
  return { width, height, pixels };
}

/** A whole gray image as PNG bytes, optionally scaled. */
export function imagePng(image: GrayImage, scale = 1): Buffer {
  return cropPng(image, { x: 0, y: 0, width: image.width, height: image.height }, scale);
}
