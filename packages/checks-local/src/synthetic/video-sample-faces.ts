/**
 * Face photos cut at run time from the sample images inside @vladmandic/human's package
 * (assets/*.jpg: photos of real people, licence unclear, so never copied into this repository).
 * Used by the face tests, the threshold measurement and the liveness control clip.
 *
 * Who is who was judged by eye. screenshot-facematch.jpg is Human's own demo page: a grid of
 * faces sorted by Human's similarity to one man ("person-a"). His photos are the first row;
 * the other people come from the next rows, the faces Human found most like him, so the
 * impostor pairs here are the hard ones, not a random sample.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';

export interface SampleFace {
  /** Unique label, e.g. "person-a-3". */
  name: string;
  /** Who it is; equal strings are the same person. */
  person: string;
  asset: string;
  crop: { x: number; y: number; width: number; height: number };
}

const FACEMATCH = 'screenshot-facematch.jpg';
/** The demo grid: 18 thumbnails a row, 106.67 px apart; rows 112 px apart from y 283. */
function gridCell(row: number, column: number) {
  return { x: Math.round(column * (1920 / 18)) + 2, y: 283 + (row - 1) * 112, width: 102, height: 104 };
}

const PERSON_A_COLUMNS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 16];
const OTHER_PEOPLE: [number, number][] = [
  [2, 4], [2, 5], [2, 6], [2, 7], [2, 9], [2, 12], [2, 14],
  [3, 1], [3, 2], [3, 3], [3, 5], [3, 6], [3, 11],
  [4, 0], [4, 3], [5, 8], [5, 12], [6, 5], [6, 6], [6, 9],
];

export const SAMPLE_FACES: readonly SampleFace[] = [
  ...PERSON_A_COLUMNS.map((column, index) => ({
    name: `person-a-${index + 1}`,
    person: 'person-a',
    asset: FACEMATCH,
    crop: gridCell(1, column),
  })),
  // The man at dinner in samples.jpg's top strip is person-a too (an independent photo).
  { name: 'person-a-dinner', person: 'person-a', asset: 'samples.jpg', crop: { x: 395, y: 0, width: 100, height: 100 } },
  ...OTHER_PEOPLE.map(([row, column]) => ({
    name: `other-r${row}c${column}`,
    person: `other-r${row}c${column}`,
    asset: FACEMATCH,
    crop: gridCell(row, column),
  })),
];

export function humanAssetsDirectory(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@vladmandic/human')), '..', 'assets');
}

/**
 * One sample face as a JPEG: the crop, scaled up `scale` times and centred on a grey canvas with
 * a margin of `margin` of its size each side (a face touching the frame edges is harder to detect).
 */
export async function sampleFaceJpeg(face: SampleFace, options: { scale?: number; margin?: number } = {}): Promise<Buffer> {
  const scale = options.scale ?? 2;
  const margin = options.margin ?? 0.5;
  const image = await loadImage(await readFile(path.join(humanAssetsDirectory(), face.asset)));
  const width = Math.round(face.crop.width * scale);
  const height = Math.round(face.crop.height * scale);
  const canvas = createCanvas(Math.round(width * (1 + 2 * margin)), Math.round(height * (1 + 2 * margin)));
  const context = canvas.getContext('2d');
  context.fillStyle = '#808080';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image, face.crop.x, face.crop.y, face.crop.width, face.crop.height, Math.round(width * margin), Math.round(height * margin), width, height);
  return canvas.encode('jpeg', 92);
}
