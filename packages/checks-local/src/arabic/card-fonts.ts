/**
 * The fonts Syrian cards are printed in, as far as this reader knows them: the digit reader's
 * templates are rendered in them, and the synthetic cards are printed in them. Each comes from a
 * Debian package (installed by .ci/run and scripts/run.mjs).
 */
import { existsSync } from 'node:fs';
import { GlobalFonts } from '@napi-rs/canvas';

export const CARD_FONTS = [
  { family: 'Amiri', file: '/usr/share/fonts/opentype/fonts-hosny-amiri/Amiri-Bold.ttf', debian: 'fonts-hosny-amiri' },
  { family: 'Noto Naskh Arabic', file: '/usr/share/fonts/truetype/noto/NotoNaskhArabic-Bold.ttf', debian: 'fonts-noto-core' },
  { family: 'Noto Sans Arabic', file: '/usr/share/fonts/truetype/noto/NotoSansArabic-Bold.ttf', debian: 'fonts-noto-core' },
  { family: 'KacstOne', file: '/usr/share/fonts/truetype/kacst-one/KacstOne-Bold.ttf', debian: 'fonts-kacst-one' },
  { family: 'AlArabiya', file: '/usr/share/fonts/truetype/fonts-arabeyes/ae_AlArabiya.ttf', debian: 'fonts-arabeyes' },
] as const;

const registered = new Set<string>();

/** Registers fonts with the canvas once; a missing one is named with its Debian package. */
export function registerFonts(fonts: readonly { family: string; file: string; debian: string }[]): void {
  for (const font of fonts) {
    if (registered.has(font.family)) continue;
    if (!existsSync(font.file) || !GlobalFonts.registerFromPath(font.file, font.family)) throw new Error(`the Arabic font ${font.family} (Debian ${font.debian}) is missing`);
    registered.add(font.family);
  }
}
