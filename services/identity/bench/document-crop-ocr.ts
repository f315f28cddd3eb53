// OCR accuracy on what the capture page sends from the camera: the whole frame (as it did) against
// the part inside the document guide plus its margin (as it does now, decision 0804). Each synthetic
// document of @svc/checks-local's accuracy set (the same seeds and variants as its `bench`) is laid
// on a desk inside the guide of the page's 4:3 viewfinder, in two camera frames:
//   - phone: 1920 × 1080, the size the page asks a camera for; the 4:3 view shows its middle 1440 px;
//   - fake camera: the document padded as the browser tests' feed (DOCUMENT_ON_DESK), about 4:3.
// Then, as the page does: the whole frame, or documentGuideRegion() of it, downscaled to at most
// 1600 px on its longer side and saved as JPEG; then read by the on-CPU OCR.
// Usage, after `pnpm build` (ffmpeg on PATH):
//   pnpm --filter @svc/identity exec tsx bench/document-crop-ocr.ts [--seeds 3] [--frame phone|fake] [--variants clean,all]
// Prints one markdown table per frame (both unless --frame names one), for every variant of the accuracy set
// unless --variants names some (by the start of their names).
import { spawnSync } from 'node:child_process';
import { createLocalChecks, imageDimensions, type DocumentType } from '@svc/checks-local';
import { ACCURACY_VARIANTS, measureAccuracy, type AccuracyCounts } from '@svc/checks-local/synthetic';
import { documentGuideRegion, wholeFrame, type Region } from '../capture/src/document-guide-region.js';

const argument = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const seedCount = Number(argument('--seeds')) || 3;
const onlyFrame = argument('--frame');
const variantNames = argument('--variants')?.split(',');
const variants = ACCURACY_VARIANTS.filter((variant) => !variantNames || variantNames.some((name) => variant.name.startsWith(name)));
const MAX_SIDE = 1600;
const DESK = '0x3a3f44';
// capture.css at any size: the viewfinder is 4:3, its guide inset 12 % top and bottom, 7 % at the sides.
const VIEW = { width: 400, height: 300 };
const GUIDE: Region = { x: 0.07 * 400, y: 0.12 * 300, width: 0.86 * 400, height: 0.76 * 300 };

type Image = { contentType: string; bytes: Buffer };

/** One image through ffmpeg's `filters`: a PNG (a camera frame, lossless) or a JPEG at quality 2 of 31 (the page's 0.92, near enough). */
function ffmpeg(input: Buffer, filters: string, codec: 'png' | 'mjpeg' = 'png'): Buffer {
  const result = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', 'pipe:0', '-vf', filters, '-frames:v', '1', '-q:v', '2', '-f', 'image2pipe', '-c:v', codec, 'pipe:1'], { input, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`ffmpeg failed: ${result.stderr.toString()}`);
  return result.stdout;
}

/** The document in a camera frame, held inside the guide: the frame as a PNG, and its size. */
type Framing = (document: Buffer) => { frame: Buffer; width: number; height: number };

const framings: Record<string, Framing> = {
  'phone 1920×1080': (document) => {
    // Fitted inside 81 % × 76 % of the visible 1440 × 1080 (the guide's 86 % × 76 %, a little inside it), centred.
    const frame = ffmpeg(document, `scale=w=${Math.round(0.81 * 1440)}:h=${Math.round(0.76 * 1080)}:force_original_aspect_ratio=decrease,pad=1920:1080:(ow-iw)/2:(oh-ih)/2:color=${DESK}`);
    return { frame, width: 1920, height: 1080 };
  },
  'fake camera (test feed)': (document) => {
    const frame = ffmpeg(document, `pad=trunc(iw/0.81/2)*2:trunc(ih/0.76/2)*2:(ow-iw)/2:(oh-ih)/2:color=${DESK}`);
    const size = imageDimensions(frame)!;
    return { frame, width: size.width, height: size.height };
  },
};

/** What the page uploads of `region`: at most MAX_SIDE px on the longer side, JPEG. */
function sent(frame: Buffer, region: Region): Image {
  const scale = Math.min(1, MAX_SIDE / Math.max(region.width, region.height));
  const bytes = ffmpeg(frame, `crop=${region.width}:${region.height}:${region.x}:${region.y},scale=${Math.round(region.width * scale)}:${Math.round(region.height * scale)}`, 'mjpeg');
  return { contentType: 'image/jpeg', bytes };
}

// Accuracy, not speed: on a busy machine a load or a read past the provider's usual limits would count as a
// rejected read, so the limits are far away here; the OCR engine loads on the first read.
const patient = 10 * 60_000;
const checks = createLocalChecks({ loadTimeoutMs: patient, inferenceTimeoutMs: patient, queueTimeoutMs: patient, concurrency: 1 });
const seeds = Array.from({ length: seedCount }, (_, index) => index + 1);
const read = (document: { documentType: DocumentType; front: Image; back: Image | null }) => checks.ocr(document);
const cell = (counts: AccuracyCounts) => `${counts.validExact}/${counts.total} / ${counts.rejected} / ${counts.falseValid} / ${counts.medianSeconds.toFixed(2)}`;

for (const [framingName, framing] of Object.entries(framings).filter(([name]) => !onlyFrame || name.startsWith(onlyFrame))) {
  const cut = {
    'whole frame': (width: number, height: number) => wholeFrame(width, height),
    'guide region': (width: number, height: number) => documentGuideRegion(width, height, VIEW.width, VIEW.height, GUIDE),
  };
  const tables: Record<string, Record<string, AccuracyCounts>> = {};
  for (const [cutName, region] of Object.entries(cut)) {
    tables[cutName] = await measureAccuracy(read, {
      seeds,
      variants,
      photograph: async (side) => {
        const { frame, width, height } = framing(side.bytes);
        return sent(frame, region(width, height));
      },
    });
    console.error(`${framingName}, ${cutName}: read`);
  }
  console.log(`\n${framingName} (${seedCount} seeds each): valid and exact | rejected | valid with wrong data | median s/read\n`);
  console.log('| OCR variant | whole frame | guide region |');
  console.log('|---|---|---|');
  for (const name of Object.keys(tables['whole frame']!)) {
    console.log(`| ${name} | ${cell(tables['whole frame']![name]!)} | ${cell(tables['guide region']![name]!)} |`);
  }
}
await checks.close();
