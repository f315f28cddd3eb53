/**
 * The pure parts of the liveness check: mesh geometry, how signals combine into a score, and
 * the byte-level helpers around ffmpeg. No model, no process.
 */
import { describe, expect, it } from 'vitest';
import type { WorkerFace } from '../src/face/worker-protocol.js';
import { LIVENESS_THRESHOLDS } from '../src/liveness/check-liveness.js';
import { createPpmReader, mp4IndexAfterMedia } from '../src/liveness/extract-frames.js';
import { affineResidual, eyeAspectRatio, smoothedResiduals } from '../src/liveness/geometry.js';
import { judgeLiveness, measureLiveness } from '../src/liveness/signals.js';
import type { LivenessMeasurements } from '../src/liveness/signals.js';

/** A 468-point pseudo-mesh: points spread over a 200 px face, with depth to turn it in 3-D. */
function mesh(transform: (x: number, y: number, z: number) => [number, number] = (x, y) => [x, y]): Float32Array {
  const points = new Float32Array(468 * 2);
  for (let index = 0; index < 468; index++) {
    const x = 100 + 100 * Math.sin(index * 1.7);
    const y = 120 + 120 * Math.cos(index * 0.9);
    const z = 40 * Math.cos(index * 2.3);
    const [u, v] = transform(x, y, z);
    points[index * 2] = u;
    points[index * 2 + 1] = v;
  }
  return points;
}

describe('mesh geometry', () => {
  it('finds no residual when a flat face is moved, zoomed, rotated and sheared', () => {
    const moved = mesh((x, y) => [1.3 * x + 0.2 * y + 40, -0.1 * x + 1.2 * y - 15]);
    expect(affineResidual(mesh(), moved)).toBeLessThan(1e-4);
  });

  it('finds a clear residual when a face with depth turns its head', () => {
    const yaw = (20 * Math.PI) / 180;
    const turned = mesh((x, y, z) => [100 + (x - 100) * Math.cos(yaw) + z * Math.sin(yaw), y]);
    // Perspective: nearer points spread more.
    const perspective = mesh((x, y, z) => {
      const scale = 1 + z / 400;
      return [100 + (x - 100) * scale, 120 + (y - 120) * scale];
    });
    expect(affineResidual(mesh(), turned)).toBeGreaterThan(LIVENESS_THRESHOLDS.minNonRigidResidual);
    expect(affineResidual(mesh(), perspective)).toBeGreaterThan(LIVENESS_THRESHOLDS.minNonRigidResidual);
  });

  it('averages the mesh jitter away: a jittering photo moved about stays rigid, a face that deforms does not', () => {
    let seed = 7;
    const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 3; // ±1.5 px on a 200 px face
    const frames = (deform: number) => Array.from({ length: 50 }, (_, frame) => {
      const shift = 10 * Math.sin(frame / 5);
      const scale = 1 + 0.03 * Math.sin(frame / 7);
      return mesh((x, y, z) => [scale * x + shift + noise() + deform * Math.sin(frame / 8) * z / 40, scale * y + noise()]);
    });
    const photo = smoothedResiduals(frames(0), 5, 10);
    const face = smoothedResiduals(frames(6), 5, 10);
    expect(Math.max(...photo)).toBeLessThan(LIVENESS_THRESHOLDS.minNonRigidResidual);
    expect(Math.max(...face)).toBeGreaterThan(LIVENESS_THRESHOLDS.minNonRigidResidual);
    // Unsmoothed, the jitter alone would be half the threshold on every frame.
    expect(affineResidual(frames(0)[0]!, frames(0)[1]!)).toBeGreaterThan(LIVENESS_THRESHOLDS.minNonRigidResidual / 2);
  });

  it('measures an eye closing as a drop of the eye-aspect ratio', () => {
    const eyes = (lidGap: number) => {
      const points = mesh();
      const set = (index: number, x: number, y: number) => {
        points[index * 2] = x;
        points[index * 2 + 1] = y;
      };
      for (const [outer, upper1, upper2, inner, lower2, lower1, left] of [[33, 160, 158, 133, 153, 144, 40], [362, 385, 387, 263, 373, 380, 140]] as const) {
        set(outer, left, 100);
        set(inner, left + 40, 100);
        set(upper1, left + 13, 100 - lidGap / 2);
        set(upper2, left + 27, 100 - lidGap / 2);
        set(lower1, left + 13, 100 + lidGap / 2);
        set(lower2, left + 27, 100 + lidGap / 2);
      }
      return points;
    };
    expect(eyeAspectRatio(eyes(12))).toBeCloseTo(0.3, 5);
    expect(eyeAspectRatio(eyes(2)) / eyeAspectRatio(eyes(12))).toBeLessThan(LIVENESS_THRESHOLDS.blinkEyeAspectShare);
  });
});

const allSeen: LivenessMeasurements = {
  frames: 60,
  framesWithOneFace: 60,
  framesWithSeveralFaces: 0,
  eyeAspectMin: 0.1,
  eyeAspectMedian: 0.3,
  yawRangeDegrees: 25,
  turnLeftDegrees: 12,
  turnRightDegrees: 13,
  nonRigidResidual: 0.03,
  identityStability: 0.8,
  documentSimilarity: 0.7,
};

describe('how the signals make a score', () => {
  it('passes a clip that shows every signal, and one that shows a blink or a head turn alone', () => {
    expect(judgeLiveness(allSeen, LIVENESS_THRESHOLDS)).toMatchObject({ livenessScore: 1, presentationAttackDetected: false, attackType: null });
    for (const oneMotion of [{ yawRangeDegrees: 2 }, { eyeAspectMin: 0.28 }]) {
      const verdict = judgeLiveness({ ...allSeen, ...oneMotion }, LIVENESS_THRESHOLDS);
      expect(verdict.livenessScore).toBeGreaterThanOrEqual(0.9);
      expect(verdict.presentationAttackDetected).toBe(false);
    }
    const otherPerson = judgeLiveness({ ...allSeen, documentSimilarity: 0.2 }, LIVENESS_THRESHOLDS);
    expect(otherPerson.signals.matchesDocument).toBe(false);
    expect(otherPerson.livenessScore).toBeLessThan(0.9);
    expect(otherPerson.livenessScore).toBeGreaterThanOrEqual(0.5);
  });

  it('puts a clip missing a required signal in the review band, not the reject band', () => {
    const missing = [
      { eyeAspectMin: 0.28, yawRangeDegrees: 4 }, // no motion, but a face that deforms
      { nonRigidResidual: 0.005 }, // motion, but a rigid face
      { framesWithSeveralFaces: 3 },
      { framesWithOneFace: 40 },
      { identityStability: 0.3 },
    ];
    for (const change of missing) {
      const verdict = judgeLiveness({ ...allSeen, ...change }, LIVENESS_THRESHOLDS);
      expect(verdict.livenessScore).toBeGreaterThanOrEqual(0.5);
      expect(verdict.livenessScore).toBeLessThanOrEqual(0.75);
      expect(verdict.presentationAttackDetected).toBe(false);
    }
  });

  const rigid = { eyeAspectMin: 0.28, yawRangeDegrees: 3, nonRigidResidual: 0.005 };

  it('calls a rigid face that neither blinks nor turns for 5 s or more a suspected photo replay, below 0.5', () => {
    const verdict = judgeLiveness({ ...allSeen, ...rigid }, LIVENESS_THRESHOLDS);
    expect(verdict).toMatchObject({ presentationAttackDetected: true, attackType: 'suspected-photo-replay' });
    expect(verdict.livenessScore).toBeLessThan(0.5);
  });

  it('leaves a shorter rigid clip to a person: over 3 s a real person sitting still measured as rigid as a photo', () => {
    const verdict = judgeLiveness({ ...allSeen, ...rigid, frames: 30, framesWithOneFace: 30 }, LIVENESS_THRESHOLDS);
    expect(verdict.presentationAttackDetected).toBe(false);
    expect(verdict.livenessScore).toBeGreaterThanOrEqual(0.5);
    expect(verdict.livenessScore).toBeLessThan(0.9);
  });

  it('asks for the turn to the side the challenge names: the other side, or a blink alone, is not live', () => {
    const turnedLeft = { ...allSeen, turnLeftDegrees: 12, turnRightDegrees: 1 };
    expect(judgeLiveness(turnedLeft, LIVENESS_THRESHOLDS, { headTurnSide: 'left' }).livenessScore).toBeGreaterThanOrEqual(0.9);
    const wrongSide = judgeLiveness(turnedLeft, LIVENESS_THRESHOLDS, { headTurnSide: 'right' });
    expect(wrongSide.signals.turnedAsAsked).toBe(false);
    expect(wrongSide.livenessScore).toBeLessThan(0.9);
    expect(wrongSide.presentationAttackDetected).toBe(false);
    const blinkOnly = { ...allSeen, yawRangeDegrees: 2, turnLeftDegrees: 1, turnRightDegrees: 1 };
    expect(judgeLiveness(blinkOnly, LIVENESS_THRESHOLDS).livenessScore).toBeGreaterThanOrEqual(0.9);
    expect(judgeLiveness(blinkOnly, LIVENESS_THRESHOLDS, { headTurnSide: 'left' }).livenessScore).toBeLessThan(0.9);
  });

  it('counts frames with no face or several faces, and leaves the document signal out when there is no document', () => {
    const face = (yaw: number): WorkerFace => ({
      score: 0.99, boxScore: 0.9, faceScore: 0.99, box: [0, 0, 200, 240], embedding: null, mesh: mesh(),
      yawDegrees: yaw, pitchDegrees: 0, rollDegrees: 0, real: null, live: null,
    });
    const measured = measureLiveness([[face(0)], [], [face(1), face(2)], [face(20)]], null);
    expect(measured).toMatchObject({ frames: 4, framesWithOneFace: 2, framesWithSeveralFaces: 1, documentSimilarity: null, identityStability: 0 });
    // Turns are measured from the pose of the first frames (the median of 0 and 20 is 10).
    expect(measured.turnRightDegrees).toBeGreaterThan(0);
    expect(judgeLiveness(measured, LIVENESS_THRESHOLDS).signals).not.toHaveProperty('matchesDocument');
  });
});

describe('ffmpeg helpers', () => {
  /** An MP4 box of `size` bytes that says it is `declared` bytes long. */
  const box = (type: string, size: number, declared = size) => {
    const bytes = Buffer.alloc(Math.max(size, 8));
    bytes.writeUInt32BE(declared, 0);
    bytes.write(type, 4, 'latin1');
    return bytes;
  };

  it('spots an MP4 whose index comes after its media (it cannot be read from a pipe)', () => {
    expect(mp4IndexAfterMedia(Buffer.concat([box('ftyp', 24), box('mdat', 100), box('moov', 50)]))).toBe(true);
    expect(mp4IndexAfterMedia(Buffer.concat([box('ftyp', 24), box('moov', 50), box('mdat', 100)]))).toBe(false);
    expect(mp4IndexAfterMedia(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0, 0, 0, 0, 0, 0, 0, 0]))).toBe(false); // WebM
    expect(mp4IndexAfterMedia(Buffer.concat([box('ftyp', 24), box('free', 8, 0), box('mdat', 100)]))).toBe(false); // a size below 8 stops the walk
  });

  it('splits a PPM stream into frames however the bytes are chunked', () => {
    const frame = (value: number) => Buffer.concat([Buffer.from('P6\n2 1\n255\n', 'latin1'), Buffer.alloc(6, value)]);
    const stream = Buffer.concat([frame(1), frame(2), frame(3)]);
    for (const chunkSize of [1, 5, 17, stream.length]) {
      const frames: number[] = [];
      const read = createPpmReader((image) => {
        expect(image).toMatchObject({ width: 2, height: 1 });
        frames.push(image.rgb[0]!);
      });
      for (let offset = 0; offset < stream.length; offset += chunkSize) read(stream.subarray(offset, offset + chunkSize));
      expect(frames).toEqual([1, 2, 3]);
    }
  });
});
