/**
 * Video frames as RGB pixels, decoded by Debian's ffmpeg. The upload goes in on stdin and the
 * frames come back on stdout as PPM (raw RGB behind a one-line size header), so no frame is
 * ever written to disk. Uploads are untrusted: ffmpeg may only read the pipe (no files, no
 * network, even from inside a playlist) and only MP4/MOV and Matroska/WebM demuxers, and the
 * process is killed when it runs past its time.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualReviewRequiredError } from '../contract.js';
import type { RgbImage } from '../face/worker-protocol.js';

export interface FrameSampling {
  framesPerSecond: number;
  /** Only the start of the video is read. */
  maxSeconds: number;
  /** Longest side of a frame after scaling. */
  maxSide: number;
}

export interface ExtractFramesOptions extends FrameSampling {
  ffmpegPath: string;
  timeoutMs: number;
}

const ALLOWED_DEMUXERS = 'mov,mp4,m4a,3gp,3g2,mj2,matroska,webm';
const STDERR_LIMIT = 4096;

/**
 * A phone's MP4 usually has its index (moov) after the media data (mdat). ffmpeg cannot read
 * that from a pipe (it would have to seek back), so such a file is handed over as a private
 * temporary file instead; every other video is piped.
 */
export function mp4IndexAfterMedia(bytes: Buffer): boolean {
  if (bytes.length < 12 || bytes.toString('latin1', 4, 8) !== 'ftyp') return false;
  let offset = 0;
  while (offset + 8 <= bytes.length) {
    let size = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    if (size === 1 && offset + 16 <= bytes.length) size = Number(bytes.readBigUInt64BE(offset + 8));
    if (type === 'moov') return false;
    if (type === 'mdat') return true;
    if (size < 8) return false;
    offset += size;
  }
  return false;
}

/** Splits a PPM (P6, maxval 255) stream into frames as the bytes arrive. */
export function createPpmReader(onFrame: (frame: RgbImage) => void) {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(pending.toString('latin1', 0, Math.min(pending.length, 32)));
      if (!header) return;
      const width = Number(header[1]);
      const height = Number(header[2]);
      const end = header[0].length + width * height * 3;
      if (pending.length < end) return;
      onFrame({ width, height, rgb: new Uint8Array(pending.subarray(header[0].length, end)) });
      pending = pending.subarray(end);
    }
  };
}

function ffmpegArguments(input: string, options: FrameSampling) {
  const side = options.maxSide;
  return [
    '-hide_banner', '-loglevel', 'error', '-nostats',
    '-protocol_whitelist', input === 'pipe:0' ? 'pipe' : 'file',
    '-format_whitelist', ALLOWED_DEMUXERS,
    '-t', String(options.maxSeconds),
    '-i', input,
    '-an', '-sn', '-dn',
    '-vf', `fps=${options.framesPerSecond},scale='if(gt(iw,ih),min(${side},iw),-2)':'if(gt(iw,ih),-2,min(${side},ih))'`,
    '-frames:v', String(Math.ceil(options.framesPerSecond * options.maxSeconds)),
    '-f', 'image2pipe', '-vcodec', 'ppm', 'pipe:1',
  ];
}

function runFfmpeg(video: Buffer, input: string, options: ExtractFramesOptions, onFrame: (frame: RgbImage) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let frames = 0;
    let stderr = '';
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(frames);
    };
    const child = spawn(options.ffmpegPath, ffmpegArguments(input, options), { stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(new ManualReviewRequiredError('Liveness: the video took too long to decode'));
    }, options.timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish(error.code === 'ENOENT'
        ? new ManualReviewRequiredError('Liveness: ffmpeg is not installed on the checks worker', { cause: error })
        : new ManualReviewRequiredError('Liveness: the video could not be decoded', { cause: error }));
    });
    child.stdout.on('data', createPpmReader((frame) => {
      frames++;
      onFrame(frame);
    }));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk.toString('utf8');
    });
    child.on('close', (code) => {
      if (code === 0 && frames > 0) finish(null);
      else finish(new ManualReviewRequiredError('Liveness: the video could not be decoded', { cause: new Error(stderr.slice(0, STDERR_LIMIT)) }));
    });
    // ffmpeg stops reading once it has its frames or refuses the input: not our error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input === 'pipe:0' ? video : undefined);
  });
}

/**
 * Hands each frame to `onFrame` as soon as ffmpeg has decoded it (so face detection on one core
 * overlaps decoding on the other) and resolves with the number of frames.
 */
export async function decodeFrames(video: Buffer, options: ExtractFramesOptions, onFrame: (frame: RgbImage) => void): Promise<number> {
  if (!mp4IndexAfterMedia(video)) return runFfmpeg(video, 'pipe:0', options, onFrame);
  const directory = await mkdtemp(path.join(tmpdir(), 'checks-video-'));
  try {
    const file = path.join(directory, 'upload.mp4');
    await writeFile(file, video, { mode: 0o600 });
    return await runFfmpeg(video, file, options, onFrame);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

export async function extractFrames(video: Buffer, options: ExtractFramesOptions): Promise<RgbImage[]> {
  const frames: RgbImage[] = [];
  await decodeFrames(video, options, (frame) => frames.push(frame));
  return frames;
}
