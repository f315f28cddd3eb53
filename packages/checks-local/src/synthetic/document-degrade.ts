/**
 * The ways a phone photo of a document differs from the clean render, applied in the order they
 * happen: the document sits at an angle, the camera resolves less, the sensor adds noise, the
 * phone saves a JPEG. Deterministic for a given seed, so a failing case can be replayed.
 */
import { createCanvas, type Canvas } from '@napi-rs/canvas';

export interface Degradation {
  /** Turn the document by this many degrees (clockwise), on a grey background. */
  rotationDegrees?: number;
  /** Resize by this factor (0.5 = half the resolution). */
  scale?: number;
  /** Gaussian-like pixel noise, as a standard deviation in grey levels (0-255). */
  noise?: number;
  /** Save as JPEG at this quality (1-100) instead of PNG. */
  jpegQuality?: number;
}

/** mulberry32: a tiny seeded generator, enough for reproducible noise and sample people. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function rotated(source: Canvas, degrees: number): Canvas {
  const radians = (degrees * Math.PI) / 180;
  const width = Math.ceil(Math.abs(source.width * Math.cos(radians)) + Math.abs(source.height * Math.sin(radians)));
  const height = Math.ceil(Math.abs(source.width * Math.sin(radians)) + Math.abs(source.height * Math.cos(radians)));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#8a8d91';
  context.fillRect(0, 0, width, height);
  context.translate(width / 2, height / 2);
  context.rotate(radians);
  context.drawImage(source, -source.width / 2, -source.height / 2);
  return canvas;
}

function scaled(source: Canvas, factor: number): Canvas {
  const canvas = createCanvas(Math.max(1, Math.round(source.width * factor)), Math.max(1, Math.round(source.height * factor)));
  const context = canvas.getContext('2d');
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = 'high';
  context.drawImage(source, 0, 0, canvas.width, canvas.height);
  return canvas;
}

function addNoise(canvas: Canvas, deviation: number, random: () => number): void {
  const context = canvas.getContext('2d');
  const image = context.getImageData(0, 0, canvas.width, canvas.height);
  const pixels = image.data;
  for (let index = 0; index < pixels.length; index += 4) {
    // The sum of three uniforms is close enough to a normal distribution for sensor noise.
    const offset = (random() + random() + random() - 1.5) * 2 * deviation;
    pixels[index] = pixels[index]! + offset;
    pixels[index + 1] = pixels[index + 1]! + offset;
    pixels[index + 2] = pixels[index + 2]! + offset;
  }
  context.putImageData(image, 0, 0);
}

/** The rendered page as the bytes an upload would carry, degraded as asked. */
export async function photographed(page: Canvas, degradation: Degradation, seed: number): Promise<{ contentType: string; bytes: Buffer }> {
  let canvas = page;
  if (degradation.rotationDegrees) canvas = rotated(canvas, degradation.rotationDegrees);
  if (degradation.scale !== undefined && degradation.scale !== 1) canvas = scaled(canvas, degradation.scale);
  if (degradation.noise) {
    if (canvas === page) canvas = scaled(page, 1);
    addNoise(canvas, degradation.noise, seededRandom(seed));
  }
  if (degradation.jpegQuality !== undefined) return { contentType: 'image/jpeg', bytes: await canvas.encode('jpeg', degradation.jpegQuality) };
  return { contentType: 'image/png', bytes: await canvas.encode('png') };
}
