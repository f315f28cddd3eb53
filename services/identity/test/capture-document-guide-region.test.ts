import { describe, expect, it } from 'vitest';
import { documentGuideRegion, type Region } from '../capture/src/document-guide-region.js';

// The capture page's document viewfinder: a 4:3 box with the guide inset 12 % top and bottom, 7 % at the sides (capture.css).
const VIEW = { width: 400, height: 300 };
const GUIDE: Region = { x: 28, y: 36, width: 344, height: 228 };
const aspect = (region: Region) => region.width / region.height;

describe('documentGuideRegion: the guide drawn over a cover-scaled video, in the video’s pixels', () => {
  it('maps the guide straight through when the video has the view’s shape (only a scale)', () => {
    // 1440 × 1080 shown in 400 × 300: 3.6 video pixels per CSS pixel, nothing cut. 28…372 × 36…264 CSS px are
    // 100.8…1339.2 × 129.6…950.4 video px, widened to whole pixels (start down, end up).
    expect(documentGuideRegion(1440, 1080, VIEW.width, VIEW.height, GUIDE, 0)).toEqual({ x: 100, y: 129, width: 1240, height: 822 });
  });

  it('landscape camera (1920 × 1080) in the 4:3 view: the sides are cut, so the guide moves right by the hidden strip', () => {
    // Scale 300/1080; the video is 533.3 CSS px wide, 66.7 of them hidden at each side (240 video px).
    const region = documentGuideRegion(1920, 1080, VIEW.width, VIEW.height, GUIDE);
    // Guide 28…372 × 36…264 CSS px, grown by 4 % of its width (13.76) and height (9.12) on each side.
    expect(region).toEqual({ x: 291, y: 96, width: 1338, height: 888 });
    expect(aspect(region)).toBeCloseTo(aspect(GUIDE), 2);
    expect(Math.abs(aspect(region) - 1920 / 1080)).toBeGreaterThan(0.2);
  });

  it('portrait camera (1080 × 1920) in the 4:3 view: top and bottom are cut, so the guide moves down', () => {
    // Scale 400/1080; the video is 711.1 CSS px high, 205.6 of them hidden above and below.
    const region = documentGuideRegion(1080, 1920, VIEW.width, VIEW.height, GUIDE);
    expect(region).toEqual({ x: 38, y: 627, width: 1004, height: 666 });
    expect(aspect(region)).toBeCloseTo(aspect(GUIDE), 1);
  });

  it('a portrait view over a landscape camera: the sides are cut', () => {
    // 300 × 400 view, 1920 × 1080 video: scale 400/1080, 711.1 CSS px wide, 205.6 hidden each side.
    const guide: Region = { x: 30, y: 100, width: 240, height: 200 };
    const region = documentGuideRegion(1920, 1080, 300, 400, guide, 0);
    expect(region).toEqual({ x: 636, y: 270, width: 648, height: 540 });
  });

  it('clamps a margin that would pass the frame’s edge to the frame', () => {
    // The guide fills the whole view of a 4:3 video: its margin lies outside the picture.
    expect(documentGuideRegion(1440, 1080, VIEW.width, VIEW.height, { x: 0, y: 0, width: 400, height: 300 })).toEqual({ x: 0, y: 0, width: 1440, height: 1080 });
    // Against the left edge only: the left side is clamped, the others keep their margin.
    const region = documentGuideRegion(1440, 1080, VIEW.width, VIEW.height, { x: 0, y: 36, width: 200, height: 228 });
    expect(region.x).toBe(0);
    expect(region.width).toBe(Math.ceil((200 * 1.04 * 1440) / 400));
    expect(region.y).toBe(Math.floor((36 - 0.04 * 228) * 3.6));
  });

  it('falls back to the whole frame when there is nothing to map (view not laid out, no video size, guide outside the frame)', () => {
    expect(documentGuideRegion(1920, 1080, 0, 0, GUIDE)).toEqual({ x: 0, y: 0, width: 1920, height: 1080 });
    expect(documentGuideRegion(1920, 1080, VIEW.width, VIEW.height, { ...GUIDE, width: 0 })).toEqual({ x: 0, y: 0, width: 1920, height: 1080 });
    expect(documentGuideRegion(1920, 1080, VIEW.width, VIEW.height, { x: 900, y: 36, width: 100, height: 100 })).toEqual({ x: 0, y: 0, width: 1920, height: 1080 });
  });
});
