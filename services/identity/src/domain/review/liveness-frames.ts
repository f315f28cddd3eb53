import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';

export interface FrameStripOptions {
  ffmpegPath: string;
  /** Strips kept in memory, least recently used dropped first (about 20 KB each). */
  maxEntries?: number;
  timeoutMs?: number;
}

export interface FrameStrips {
  /** The JPEG strip of a video, made on the first call for its hash and remembered after. */
  get(sha256Hash: string, open: () => Promise<Readable>): Promise<Buffer>;
}

/** Six stills, one every half second from the first three seconds, 160 px wide, side by side. */
const FILTER = 'fps=2,scale=160:-2,tile=6x1';

/**
 * Liveness stills for reviewers, extracted once per video and then served from memory. Keyed by
 * the video's SHA-256, so a re-upload is a new strip; concurrent first requests share one ffmpeg.
 * The video goes through a private temp file because phone MP4s keep their index at the end, which
 * ffmpeg cannot seek to on a pipe. Kept in memory rather than on disk: stills of a face are evidence
 * too, and an unencrypted copy on disk would outlive the case's retention.
 */
export function createFrameStrips(options: FrameStripOptions): FrameStrips {
  const maxEntries = options.maxEntries ?? 200;
  const cache = new Map<string, Promise<Buffer>>();
  return {
    get(sha256Hash, open) {
      const cached = cache.get(sha256Hash);
      if (cached) {
        cache.delete(sha256Hash);
        cache.set(sha256Hash, cached);
        return cached;
      }
      const made = extract(open, options.ffmpegPath, options.timeoutMs ?? 15_000);
      cache.set(sha256Hash, made);
      // A failure is not remembered: the next look tries again.
      made.catch(() => cache.delete(sha256Hash));
      while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      return made;
    },
  };
}

export class FramesUnavailableError extends Error {}

async function extract(open: () => Promise<Readable>, ffmpegPath: string, timeoutMs: number): Promise<Buffer> {
  const directory = await mkdtemp(join(tmpdir(), 'identity-frames-'));
  try {
    const input = join(directory, 'video');
    await pipeline(await open(), createWriteStream(input, { mode: 0o600 }));
    return await runFfmpeg(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-t', '3', '-i', input, '-vf', FILTER, '-frames:v', '1', '-f', 'image2', '-c:v', 'mjpeg', 'pipe:1'], timeoutMs);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function runFfmpeg(ffmpegPath: string, args: string[], timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let errorText = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (errorText = (errorText + chunk.toString()).slice(-500)));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new FramesUnavailableError(`ffmpeg could not start: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const strip = Buffer.concat(chunks);
      if (code === 0 && strip.length > 0) resolve(strip);
      else reject(new FramesUnavailableError(`ffmpeg made no stills (exit ${code}): ${errorText.trim()}`));
    });
  });
}
