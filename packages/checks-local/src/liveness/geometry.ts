/**
 * Measurements on Human's 468-point face mesh (pixel x, y pairs). Plain arithmetic, no model.
 */

/** Six mesh points per eye: outer corner, two upper lid, inner corner, two lower lid (MediaPipe's indices). */
const RIGHT_EYE = [33, 160, 158, 133, 153, 144] as const;
const LEFT_EYE = [362, 385, 387, 263, 373, 380] as const;

function point(mesh: Float32Array, index: number): [number, number] {
  return [mesh[index * 2] ?? Number.NaN, mesh[index * 2 + 1] ?? Number.NaN];
}

function distance(a: [number, number], b: [number, number]) {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}

function eyeAspect(mesh: Float32Array, eye: readonly number[]) {
  const [corner1, upper1, upper2, corner2, lower2, lower1] = eye.map((index) => point(mesh, index));
  return (distance(upper1!, lower1!) + distance(upper2!, lower2!)) / (2 * distance(corner1!, corner2!));
}

/** Eye-aspect ratio (lid gap over eye width), both eyes averaged: it drops sharply in a blink. */
export function eyeAspectRatio(mesh: Float32Array): number {
  return (eyeAspect(mesh, RIGHT_EYE) + eyeAspect(mesh, LEFT_EYE)) / 2;
}

export function meshWidth(mesh: Float32Array): number {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < mesh.length; index += 2) {
    min = Math.min(min, mesh[index]!);
    max = Math.max(max, mesh[index]!);
  }
  return max - min;
}

/** Solves a 3×3 linear system (Cramer's rule); null when it is singular. */
function solve3(m: number[][], v: number[]): [number, number, number] | null {
  const det = (a: number[][]) =>
    a[0]![0]! * (a[1]![1]! * a[2]![2]! - a[1]![2]! * a[2]![1]!) -
    a[0]![1]! * (a[1]![0]! * a[2]![2]! - a[1]![2]! * a[2]![0]!) +
    a[0]![2]! * (a[1]![0]! * a[2]![1]! - a[1]![1]! * a[2]![0]!);
  const d = det(m);
  if (Math.abs(d) < 1e-9) return null;
  const column = (c: number) => m.map((row, r) => row.map((value, k) => (k === c ? v[r]! : value)));
  return [det(column(0)) / d, det(column(1)) / d, det(column(2)) / d];
}

/**
 * How far `target` is from the best 2-D affine copy of `reference` (least squares), as the RMS
 * point error over the target face's width. A flat photo moved, zoomed or sheared in front of
 * the camera stays close to 0; a real head that turns, blinks or moves its mouth does not.
 */
export function affineResidual(reference: Float32Array, target: Float32Array): number {
  const count = Math.min(reference.length, target.length) / 2;
  // Centred and scaled to 1, so the normal equations stay well conditioned.
  const scale = meshWidth(reference) || 1;
  let meanX = 0;
  let meanY = 0;
  for (let i = 0; i < count; i++) {
    meanX += reference[i * 2]!;
    meanY += reference[i * 2 + 1]!;
  }
  meanX /= count;
  meanY /= count;
  const xs = new Float64Array(count);
  const ys = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    xs[i] = (reference[i * 2]! - meanX) / scale;
    ys[i] = (reference[i * 2 + 1]! - meanY) / scale;
  }
  let sxx = 0, sxy = 0, syy = 0, sx = 0, sy = 0;
  let tx = [0, 0, 0];
  let ty = [0, 0, 0];
  for (let i = 0; i < count; i++) {
    const x = xs[i]!, y = ys[i]!, u = target[i * 2]!, v = target[i * 2 + 1]!;
    sxx += x * x; sxy += x * y; syy += y * y; sx += x; sy += y;
    tx = [tx[0]! + x * u, tx[1]! + y * u, tx[2]! + u];
    ty = [ty[0]! + x * v, ty[1]! + y * v, ty[2]! + v];
  }
  const normal = [[sxx, sxy, sx], [sxy, syy, sy], [sx, sy, count]];
  const a = solve3(normal, tx);
  const b = solve3(normal, ty);
  if (!a || !b) return Number.NaN;
  let squared = 0;
  for (let i = 0; i < count; i++) {
    const x = xs[i]!, y = ys[i]!;
    const du = a[0] * x + a[1] * y + a[2] - target[i * 2]!;
    const dv = b[0] * x + b[1] * y + b[2] - target[i * 2 + 1]!;
    squared += du * du + dv * dv;
  }
  return Math.sqrt(squared / count) / (meshWidth(target) || 1);
}

/** The face mesh's own points; the iris model appends 10 more that move with the gaze, not the face. */
const MESH_POINTS = 468;

/**
 * Each frame's affine residual to the frame `lag` frames earlier, after averaging the meshes over
 * `window` frames (a centred moving average). A mesh jitters by about 0.7 % of the face's width
 * from frame to frame even on a still photo; averaging cancels most of that, while a real face's
 * deformation (a word, a blink, a turn) lasts longer than half a second and stays. An average of
 * affine copies is still an affine copy, so a flat photo moved in front of the camera stays near
 * 0. Comparing with a recent frame rather than the first keeps the mesh's own slight distortion
 * as a face grows or shrinks in the picture (a photo brought closer) out of the measure.
 */
export function smoothedResiduals(meshes: readonly Float32Array[], window: number, lag: number): number[] {
  if (meshes.length === 0) return [];
  const length = Math.min(MESH_POINTS * 2, ...meshes.map((mesh) => mesh.length));
  const smoothed = meshes.map((_, index) => {
    const from = Math.max(0, Math.min(index - Math.floor(window / 2), meshes.length - window));
    const to = Math.min(meshes.length, from + window);
    const sum = new Float32Array(length);
    for (let frame = from; frame < to; frame++) for (let value = 0; value < length; value++) sum[value]! += meshes[frame]![value]! / (to - from);
    return sum;
  });
  return smoothed.slice(lag).map((mesh, index) => affineResidual(smoothed[index]!, mesh));
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function quantile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}
