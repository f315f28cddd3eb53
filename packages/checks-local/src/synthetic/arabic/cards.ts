/**
 * Synthetic Syrian national ID card fronts for measuring the Arabic reader: five Arabic fonts
 * (Amiri's heavy naskh ligatures among them), half the cards with Arabic-Indic digits, each card
 * clean (flat, as a scan) or phone-like (on a table, rotated, sheared, blurred, with glare, JPEG),
 * with its ground truth. A dev tool: the runtime entry does not export it.
 */
import { createCanvas, loadImage, type SKRSContext2D } from '@napi-rs/canvas';
import { CARD_FONTS, registerFonts } from '../../arabic/card-fonts.js';
import { CARD_HEIGHT, CARD_WIDTH, LABEL_RIGHT, NATIONAL_ID_LAYOUT, VALUE_RIGHT, VALUE_SIZE, type NationalIdField } from '../../arabic/card-layout.js';
import { seededRandom, syrianHolder, type SyrianHolder } from './holders.js';

export const ARABIC_CARD_FONTS = CARD_FONTS;
const LABEL_FONT = { family: 'Noto Sans Arabic Regular', file: '/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf', debian: 'fonts-noto-core' };

export function registerArabicFonts(): void {
  registerFonts([...CARD_FONTS, LABEL_FONT]);
}

export type CardCondition = 'clean' | 'degraded';

export interface SyntheticArabicCard {
  seed: number;
  font: string;
  arabicIndicDigits: boolean;
  condition: CardCondition;
  /** PNG when clean, JPEG when degraded. */
  image: Buffer;
  holder: SyrianHolder;
  /** The fields as the reader should return them (Arabic as printed, NFC; digits Western in dateOfBirth and nationalNumber). */
  truth: Record<NationalIdField, string>;
}

const ARABIC_INDIC = '٠١٢٣٤٥٦٧٨٩';
export function toArabicIndic(text: string): string {
  return text.replace(/[0-9]/g, (digit) => ARABIC_INDIC[Number(digit)]!);
}

function printedValues(holder: SyrianHolder, arabicIndic: boolean): Record<NationalIdField, string> {
  const digits = (text: string) => (arabicIndic ? toArabicIndic(text) : text);
  return {
    firstNameAr: holder.firstName.arabic,
    surnameAr: holder.surname.arabic,
    fatherNameAr: holder.fatherName.arabic,
    motherNameAr: holder.motherName.arabic,
    birthPlaceAr: holder.birthPlaceAr,
    dateOfBirth: digits(holder.dateOfBirth.split('-').reverse().join('/')),
    civilRegistryAr: digits(holder.civilRegistryAr),
    nationalNumber: digits(holder.nationalNumber),
  };
}

function drawFront(context: SKRSContext2D, font: string, values: Record<NationalIdField, string>, random: () => number): void {
  context.fillStyle = '#e8f1e6';
  context.fillRect(0, 0, CARD_WIDTH, CARD_HEIGHT);
  context.strokeStyle = 'rgba(70, 120, 90, 0.16)';
  context.lineWidth = 1.2;
  const phase = random() * 100;
  for (let ring = 40; ring < 700; ring += 26) {
    context.beginPath();
    context.arc(520 + phase, 330, ring, 0, Math.PI * 2);
    context.stroke();
  }
  context.direction = 'rtl';
  context.textAlign = 'right';
  context.fillStyle = '#1c3d2e';
  context.font = `26px "${LABEL_FONT.family}"`;
  context.fillText('الجمهورية العربية السورية - بطاقة شخصية', LABEL_RIGHT, 70);
  context.fillStyle = '#c9d3cf';
  context.fillRect(40, 130, 210, 270);
  for (const region of NATIONAL_ID_LAYOUT) {
    context.fillStyle = '#3d4a57';
    context.font = `22px "${LABEL_FONT.family}"`;
    context.fillText(`${region.label}:`, LABEL_RIGHT, region.baseline);
    context.fillStyle = '#111111';
    context.font = `${VALUE_SIZE}px "${font}"`;
    context.fillText(values[region.field], VALUE_RIGHT, region.baseline);
  }
}

/** The card photographed on a table: rotated, sheared, scaled, blurred, lit from one side, with a glare spot, JPEG. */
async function phoneLike(flat: Buffer, random: () => number): Promise<Buffer> {
  const card = await loadImage(flat);
  const canvas = createCanvas(1280, 900);
  const context = canvas.getContext('2d');
  context.fillStyle = `rgb(${50 + random() * 40}, ${45 + random() * 30}, ${40 + random() * 30})`;
  context.fillRect(0, 0, canvas.width, canvas.height);
  const angle = ((random() * 2 - 1) * 6 * Math.PI) / 180;
  const scale = 1.0 + random() * 0.15;
  const shear = (random() * 2 - 1) * 0.04;
  context.save();
  context.translate(640 + (random() * 2 - 1) * 30, 450 + (random() * 2 - 1) * 20);
  context.rotate(angle);
  context.transform(scale, shear, shear / 2, scale * (0.97 + random() * 0.06), 0, 0);
  context.filter = `blur(${(0.6 + random() * 0.7).toFixed(2)}px)`;
  context.drawImage(card, -CARD_WIDTH / 2, -CARD_HEIGHT / 2);
  context.restore();
  context.filter = 'none';
  const lightX = random() * 1280;
  const gradient = context.createLinearGradient(0, 0, 1280, 0);
  gradient.addColorStop(0, 'rgba(0,0,0,0.18)');
  gradient.addColorStop(1, 'rgba(255,255,255,0.06)');
  context.fillStyle = gradient;
  context.fillRect(0, 0, 1280, 900);
  const glare = context.createRadialGradient(lightX, 250 + random() * 400, 10, lightX, 450, 160);
  glare.addColorStop(0, 'rgba(255,255,255,0.45)');
  glare.addColorStop(1, 'rgba(255,255,255,0)');
  context.fillStyle = glare;
  context.fillRect(0, 0, 1280, 900);
  return canvas.encode('jpeg', 55 + Math.floor(random() * 25));
}

export async function generateArabicCard(seed: number, condition: CardCondition): Promise<SyntheticArabicCard> {
  registerArabicFonts();
  const random = seededRandom(seed);
  const holder = syrianHolder(random);
  const font = ARABIC_CARD_FONTS[seed % ARABIC_CARD_FONTS.length]!.family;
  const arabicIndicDigits = Math.floor(seed / ARABIC_CARD_FONTS.length) % 2 === 1;
  const values = printedValues(holder, arabicIndicDigits);
  const canvas = createCanvas(CARD_WIDTH, CARD_HEIGHT);
  drawFront(canvas.getContext('2d'), font, values, random);
  const flat = await canvas.encode('png');
  const image = condition === 'clean' ? flat : await phoneLike(flat, random);
  const truth = { ...values, dateOfBirth: holder.dateOfBirth, nationalNumber: holder.nationalNumber };
  return { seed, font, arabicIndicDigits, condition, image, holder, truth };
}
