/**
 * Sample liveness videos made with Debian's ffmpeg, for tests, the samples command and the bench.
 * - videoFromStill: one photo, slowly zoomed and panned with sensor-like noise. This is what a
 *   photo held up to the camera looks like: a replay attack, which must not pass as live.
 * - videoFromPhotos / controlClip: several different photos of one man spliced together, so the
 *   face really changes shape and pose between frames. Not a live person either, but the nearest
 *   honest stand-in for one available offline (no real capture can be shipped here).
 * MP4s keep ffmpeg's default layout (index after the media, as phones write them); WebMs are VP9.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SAMPLE_FACES, sampleFaceJpeg } from './video-sample-faces.js';

export type VideoContainer = 'mp4' | 'webm';

export interface SyntheticVideoOptions {
  container: VideoContainer;
  seconds?: number;
  width?: number;
  height?: number;
  framesPerSecond?: number;
  ffmpegPath?: string;
}

const ENCODERS: Record<VideoContainer, string[]> = {
  mp4: ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-f', 'mp4'],
  webm: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '1M', '-pix_fmt', 'yuv420p', '-f', 'webm'],
};

function runFfmpeg(ffmpegPath: string, args: string[], stdinFrames: Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    let stderr = '';
    child.on('error', reject);
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(output)) : reject(new Error(`ffmpeg failed (${code}): ${stderr.slice(-2000)}`))));
    child.stdin.on('error', reject);
    for (const frame of stdinFrames) child.stdin.write(frame);
    child.stdin.end();
  });
}

/**
 * Encodes JPEG frames (one per output frame, piped in) with a slow zoom, a small sideways sway
 * and temporal noise. An MP4 needs a seekable output for its index, so it goes through a
 * temporary file; a WebM streams to stdout.
 */
async function encode(jpegFrames: Buffer[], options: SyntheticVideoOptions): Promise<Buffer> {
  const width = options.width ?? 1280;
  const height = options.height ?? 720;
  const fps = options.framesPerSecond ?? 30;
  const filters = [
    `scale=${width}:${height}:force_original_aspect_ratio=decrease`,
    `pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2:color=gray`,
    'setsar=1',
    `zoompan=z='1+0.12*on/${jpegFrames.length}':x='iw/2-(iw/zoom/2)+${Math.round(width / 40)}*sin(on/9)':y='ih/2-(ih/zoom/2)+${Math.round(height / 60)}*cos(on/13)':d=1:s=${width}x${height}:fps=${fps}`,
    'noise=alls=10:allf=t',
  ].join(',');
  const input = ['-hide_banner', '-loglevel', 'error', '-f', 'image2pipe', '-framerate', String(fps), '-c:v', 'mjpeg', '-i', 'pipe:0', '-vf', filters, ...ENCODERS[options.container]];
  const ffmpegPath = options.ffmpegPath ?? 'ffmpeg';
  if (options.container === 'webm') return runFfmpeg(ffmpegPath, [...input, 'pipe:1'], jpegFrames);
  const directory = await mkdtemp(path.join(tmpdir(), 'synthetic-video-'));
  try {
    const file = path.join(directory, 'clip.mp4');
    await runFfmpeg(ffmpegPath, [...input, '-y', file], jpegFrames);
    return await readFile(file);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** A replay-attack clip: one still photo (JPEG) filmed for `seconds` (default 3). */
export function videoFromStill(photo: Buffer, options: SyntheticVideoOptions): Promise<Buffer> {
  const frameCount = Math.round((options.seconds ?? 3) * (options.framesPerSecond ?? 30));
  return encode(Array.from({ length: frameCount }, () => photo), options);
}

/** Several JPEG photos, each held for an equal share of `seconds`, in order. */
export function videoFromPhotos(photos: Buffer[], options: SyntheticVideoOptions): Promise<Buffer> {
  if (photos.length === 0) throw new Error('videoFromPhotos needs at least one photo');
  const frameCount = Math.round((options.seconds ?? 3) * (options.framesPerSecond ?? 30));
  return encode(Array.from({ length: frameCount }, (_, index) => photos[Math.floor((index * photos.length) / frameCount)]!), options);
}

/** The control clip: person-a's first `photoCount` photos from Human's sample assets, spliced. */
export async function controlClip(options: SyntheticVideoOptions & { photoCount?: number }): Promise<Buffer> {
  const faces = SAMPLE_FACES.filter((face) => face.person === 'person-a').slice(0, options.photoCount ?? 6);
  const photos = await Promise.all(faces.map((face) => sampleFaceJpeg(face, { scale: 3, margin: 0.4 })));
  return videoFromPhotos(photos, options);
}

/** A replay clip of person-a's first photo, as a sample: 6 s unless told, the length the capture page records. */
export async function stillPhotoClip(options: SyntheticVideoOptions): Promise<Buffer> {
  const face = SAMPLE_FACES.find((sample) => sample.person === 'person-a')!;
  return videoFromStill(await sampleFaceJpeg(face, { scale: 3, margin: 0.4 }), { seconds: 6, ...options });
}
