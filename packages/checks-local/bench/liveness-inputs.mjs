// The inputs of the liveness bench and of test/liveness-real.test.ts, with what each shows.
// Windows are 6 s, the longest stretch the check reads. What happens in them was read off every
// frame (25 fps) of both recordings and confirmed by eye on the frames:
// - eyes closed: B 3.9–4.1 s, A 25.6 s;
// - head turns (yaw swings of 13–22°): B 20–23 s, A 19–21 s, A 26–31 s, A 38–39 s;
// - the rest: the man sits still, looking at the camera (some small nods and talking).
// Thresholds were tuned on the original-scale windows of B 0–12 s and A 20–35 s only ('tuned');
// every other window, and every phone-scale or mirrored copy, is 'held back'. Replays of frames
// from those stretches (400×300) were looked at while tuning too.

/** [recording, start, what it shows, tuned on?] */
const WINDOWS = [
  ['B', 0, 'live', true],
  ['B', 2, 'live', true],
  ['B', 6, 'still person', true],
  ['A', 20, 'live', true],
  ['A', 26, 'live', true],
  ['B', 12, 'still person', false],
  ['B', 18, 'live', false],
  ['B', 24, 'still person', false],
  ['A', 0, 'still person', false],
  ['A', 6, 'still person', false],
  ['A', 12, 'still person', false],
  ['A', 36, 'live', false],
  ['A', 42, 'still person', false],
  ['A', 47, 'still person', false],
];

const PRESENTATIONS = [
  { label: '400×300', scale: 'original', mirror: false },
  { label: '720p phone', scale: 'phone', mirror: false },
  { label: 'mirrored', scale: 'original', mirror: true },
];

const STILLS = [
  { label: 'B frame at 1 s', source: { recording: 'B', at: 1 }, tuned: true },
  { label: 'B frame at 9 s', source: { recording: 'B', at: 9 }, tuned: false },
  { label: 'A frame at 22 s', source: { recording: 'A', at: 22 }, tuned: true },
  { label: 'A frame at 40 s', source: { recording: 'A', at: 40 }, tuned: false },
  { label: 'Grace Hopper photo', source: 'grace-hopper', tuned: false },
];

export const LIVENESS_INPUTS = [
  ...WINDOWS.flatMap(([recording, start, expected, tuned]) =>
    PRESENTATIONS.map((presentation) => ({
      kind: 'real',
      name: `${recording} ${start}–${start + 6} s, ${presentation.label}`,
      set: tuned && presentation.scale === 'original' && !presentation.mirror ? 'tuned' : 'held back',
      expected,
      recording,
      segment: { start, seconds: 6, scale: presentation.scale, mirror: presentation.mirror },
    })),
  ),
  ...STILLS.flatMap((still) =>
    [false, true].flatMap((handheld) =>
      ['original', 'phone'].map((scale) => ({
        kind: 'replay',
        name: `replay: ${still.label}, ${handheld ? 'hand-held' : 'still'}, ${scale === 'phone' ? '720p phone' : '400×300'}`,
        set: still.tuned && scale === 'original' ? 'tuned' : 'held back',
        expected: 'attack',
        source: still.source,
        handheld,
        scale,
      })),
    ),
  ),
];

// Head turns to one side only (read off the yaw of every frame): B 18.5–21.2 s the man turns to his
// left and back, A 36.5–39.0 s to his right and back. Mirrored, each turns the other way.
const ONE_SIDED = [
  ['B', 18.5, 2.7, 'left'],
  ['A', 36.5, 2.5, 'right'],
];

/** Each clip judged against both sides' challenge: live only for the side it turns to. */
export const CHALLENGE_INPUTS = ONE_SIDED.flatMap(([recording, start, seconds, side]) =>
  [false, true].map((mirror) => ({
    kind: 'real',
    name: `${recording} ${start}–${start + seconds} s${mirror ? ', mirrored' : ''}`,
    recording,
    segment: { start, seconds, scale: 'original', mirror },
    turnsTo: mirror ? (side === 'left' ? 'right' : 'left') : side,
  })),
);
