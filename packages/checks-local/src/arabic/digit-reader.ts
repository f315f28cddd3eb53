/**
 * Reading a line of digits, Western or Arabic-Indic, by template matching. Tesseract's `ara`
 * model has no ٢–٩ in its character set and the script model reads a digit-only Arabic-Indic line
 * as Latin letters, so digits are matched against glyphs rendered in the fonts Syrian cards
 * print. Each ink blob of the warped card (fixed scale) is compared on its shape on a small grid,
 * its size and its height above the baseline; the nearest glyph wins unless it is far off or
 * nearly tied with a different digit, which makes the whole line unreadable.
 */
import { createCanvas } from '@napi-rs/canvas';
import { CARD_FONTS, registerFonts } from './card-fonts.js';
import { otsuThreshold, type GrayImage } from './card-geometry.js';

export const DIGIT_FONTS = CARD_FONTS;

const GLYPHS = '0123456789٠١٢٣٤٥٦٧٨٩/';
const GRID_WIDTH = 8;
const GRID_HEIGHT = 12;

interface Blob {
  x: number;
  y: number;
  width: number;
  height: number;
  features: number[];
}

export interface DigitTemplate {
  glyph: string;
  features: number[];
}

export interface DigitReading {
  /** Western digits and "/" in reading order, or null when a blob matched nothing well enough. */
  text: string | null;
  arabicIndic: boolean;
}

function blobsOf(image: GrayImage, threshold: number, size: number): Blob[] {
  const { width, height, pixels } = image;
  const label = new Int32Array(width * height).fill(-1);
  const blobs: Blob[] = [];
  const stack: number[] = [];
  for (let start = 0; start < pixels.length; start += 1) {
    if (pixels[start]! >= threshold || label[start] !== -1) continue;
    const members: number[] = [];
    label[start] = blobs.length;
    stack.push(start);
    while (stack.length > 0) {
      const at = stack.pop()!;
      members.push(at);
      const x = at % width;
      const y = (at - x) / width;
      for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, -1], [1, -1], [-1, 1]] as const) {
        const nx = x + dx;
        const ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
        const next = ny * width + nx;
        if (label[next] === -1 && pixels[next]! < threshold) {
          label[next] = blobs.length;
          stack.push(next);
        }
      }
    }
    if (members.length < 4) {
      blobs.push({ x: 0, y: 0, width: 0, height: 0, features: [] });
      continue;
    }
    let left = width, right = 0, top = height, bottom = 0;
    for (const at of members) {
      const x = at % width;
      const y = (at - x) / width;
      left = Math.min(left, x); right = Math.max(right, x); top = Math.min(top, y); bottom = Math.max(bottom, y);
    }
    const blobWidth = right - left + 1;
    const blobHeight = bottom - top + 1;
    // Each grid cell is the share of ink in its part of the box, sampled 3 × 3 so a blob a few pixels wide still fills the grid.
    const shape: number[] = [];
    const owner = blobs.length;
    for (let row = 0; row < GRID_HEIGHT; row += 1) {
      for (let column = 0; column < GRID_WIDTH; column += 1) {
        let ink = 0;
        for (let sy = 0; sy < 3; sy += 1) {
          for (let sx = 0; sx < 3; sx += 1) {
            const x = left + Math.min(blobWidth - 1, Math.floor(((column + (sx + 0.5) / 3) / GRID_WIDTH) * blobWidth));
            const y = top + Math.min(blobHeight - 1, Math.floor(((row + (sy + 0.5) / 3) / GRID_HEIGHT) * blobHeight));
            if (label[y * width + x] === owner) ink += 1;
          }
        }
        shape.push(ink / 9);
      }
    }
    // Size and place matter: ٠ is a small dot, ١ a bar like 1, "/" a slanted bar.
    blobs.push({ x: left, y: top, width: blobWidth, height: blobHeight, features: [...shape, (blobHeight / size) * 4, (blobWidth / size) * 4, (bottom / size) * 2] });
  }
  return blobs.filter((blob) => blob.features.length > 0);
}

/** Baseline-relative blob features need the line's baseline: bottoms are measured from the lowest tall blob. */
function relativeToLine(blobs: Blob[], size: number): Blob[] {
  const tall = blobs.filter((blob) => blob.height > size * 0.45);
  const baseline = tall.length > 0 ? Math.max(...tall.map((blob) => blob.y + blob.height)) : Math.max(...blobs.map((blob) => blob.y + blob.height));
  return blobs.map((blob) => {
    const features = [...blob.features];
    features[features.length - 1] = ((baseline - (blob.y + blob.height)) / size) * 4;
    return { ...blob, features };
  });
}

/** A blurred template is cut at the Otsu threshold and at a lighter one, as a photographed line's soft edges are. */
const TEMPLATE_THRESHOLD_SHIFTS = [0, 30];

/**
 * Renders every digit of every card font at the card's value size, sharp (blur 0) and at each
 * other blur given: a phone camera's blur changes a small glyph's shape at any ink threshold.
 */
export function digitTemplates(size: number, blurs: readonly number[] = [0]): DigitTemplate[] {
  registerFonts(DIGIT_FONTS);
  const templates: DigitTemplate[] = [];
  for (const font of DIGIT_FONTS) {
    for (const glyph of GLYPHS) {
      for (const blur of blurs) {
        const canvas = createCanvas(size * 3, size * 2);
        const context = canvas.getContext('2d');
        context.fillStyle = '#fff';
        context.fillRect(0, 0, canvas.width, canvas.height);
        context.fillStyle = '#000';
        context.font = `${size}px "${font.family}"`;
        if (blur > 0) context.filter = `blur(${blur}px)`;
        // A tall reference glyph after it sets the baseline the way a printed line does (a Western one:
        // two Arabic-Indic digits with a space between would be laid out right to left).
        context.fillText(`${glyph} 7`, size / 2, size * 1.4);
        const data = context.getImageData(0, 0, canvas.width, canvas.height);
        const pixels = new Uint8ClampedArray(canvas.width * canvas.height);
        for (let index = 0; index < pixels.length; index += 1) pixels[index] = data.data[index * 4]!;
        const shifts = blur === 0 ? [0] : TEMPLATE_THRESHOLD_SHIFTS;
        for (const shift of shifts) {
          const threshold = blur === 0 ? 128 : otsuThreshold(pixels) + shift;
          const blobs = relativeToLine(blobsOf({ width: canvas.width, height: canvas.height, pixels }, threshold, size), size).sort((first, second) => first.x - second.x);
          if (blobs.length >= 2) templates.push({ glyph, features: blobs[0]!.features });
        }
      }
    }
  }
  return templates;
}

function distance(first: number[], second: number[]): number {
  let sum = 0;
  for (let index = 0; index < first.length; index += 1) sum += (first[index]! - second[index]!) ** 2;
  return Math.sqrt(sum);
}

/** A blob whose second-best digit is this close is unclear: a wider margin turns misreads into gaps the other readings fill. */
const NEAR_TIE = 0.3;

/**
 * Two glyphs that touch (٨ and "/" in KacstOne) make one blob whose shape, squeezed onto the grid,
 * can still look like a digit; its size cannot. Width and height are features scaled by 4/size.
 */
const SIZE_TOLERANCE = 0.9;
function sameSize(blob: Blob, template: DigitTemplate): boolean {
  const at = blob.features.length;
  return Math.abs(blob.features[at - 2]! - template.features[at - 2]!) <= SIZE_TOLERANCE && Math.abs(blob.features[at - 3]! - template.features[at - 3]!) <= SIZE_TOLERANCE;
}

const WESTERN_OF: Record<string, string> = Object.fromEntries([...'٠١٢٣٤٥٦٧٨٩'].map((digit, index) => [digit, String(index)]));

/** Reads the digits in a crop; thresholdShift moves the ink threshold (an independent second reading uses another one). */
export function readDigits(image: GrayImage, templates: DigitTemplate[], size: number, thresholdShift = 0): DigitReading {
  const threshold = otsuThreshold(image.pixels) + thresholdShift;
  const blobs = relativeToLine(blobsOf(image, threshold, size), size)
    .filter((blob) => blob.height > size * 0.06 && blob.height < size * 1.6)
    .sort((first, second) => first.x - second.x);
  let text: string | null = '';
  let arabicIndic = 0;
  for (const blob of blobs) {
    const ranked = templates.map((template) => ({ glyph: template.glyph, template, distance: distance(blob.features, template.features) })).sort((first, second) => first.distance - second.distance);
    const best = ranked[0];
    if (best === undefined) return { text: null, arabicIndic: false };
    // The digit set is judged from every blob, even when one blob is too unclear to read.
    if (best.glyph in WESTERN_OF) arabicIndic += 1;
    const value = WESTERN_OF[best.glyph] ?? best.glyph;
    const rival = ranked.find((candidate) => (WESTERN_OF[candidate.glyph] ?? candidate.glyph) !== value);
    const unclear = best.distance > 4.5 || (rival !== undefined && rival.distance - best.distance < NEAR_TIE) || !sameSize(blob, best.template);
    text = text === null || unclear ? null : text + value;
  }
  return { text, arabicIndic: arabicIndic * 2 > blobs.length };
}

const INK_THRESHOLD_SHIFTS = [-20, 0, 20, 40];
/** Three template readers: sharp glyphs; sharp and phone-blurred; softly blurred. */
const TEMPLATE_BLUR_SETS = [[0], [0, 0.8, 1.3], [0.5, 1.0]];

export function digitTemplateSets(size: number): DigitTemplate[][] {
  return TEMPLATE_BLUR_SETS.map((blurs) => digitTemplates(size, blurs));
}

/**
 * A line read by every template set at every ink threshold: twelve readings, each conservative
 * (an unclear blob voids it), which agreedValue() turns into one value or none.
 */
export function readDigitsEveryWay(image: GrayImage, templateSets: DigitTemplate[][], size: number): DigitReading[] {
  return templateSets.flatMap((templates) => INK_THRESHOLD_SHIFTS.map((shift) => readDigits(image, templates, size, shift)));
}

/**
 * The value at least `needed` readings give, outvoting any other valid value four to one (a lone
 * misread among eight agreeing readings does not void the line); null otherwise.
 */
export function agreedValue(values: (string | null)[], needed: number): string | null {
  const counts = new Map<string, number>();
  for (const value of values) if (value !== null) counts.set(value, (counts.get(value) ?? 0) + 1);
  const [top, runnerUp] = [...counts.entries()].sort((first, second) => second[1] - first[1]);
  return top !== undefined && top[1] >= needed && top[1] >= 4 * (runnerUp?.[1] ?? 0) ? top[0] : null;
}
