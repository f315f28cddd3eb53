/**
 * Drawing the synthetic pages with @napi-rs/canvas: a Syrian passport data page (ID-3 size,
 * 125 × 88 mm, TD3 MRZ) and both sides of a Syrian national ID card (ID-1, 85.6 × 54 mm, TD1
 * MRZ on the back). The layouts are invented but keep the ICAO MRZ geometry: OCR-B at 10
 * characters per inch, in the band at the bottom. Printed fields repeat the MRZ in Latin letters
 * (what the OCR cross-checks names against) and, on the card's front, in Arabic.
 */
import { existsSync } from 'node:fs';
import { createCanvas, GlobalFonts, loadImage, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { MrzHolder } from './document-mrz.js';

export const OCR_B_FONT_PATH = '/usr/share/fonts/opentype/ocr-b/OCRB.otf';
const OCR_B = 'OCR-B synthetic MRZ';
const TEXT = 'DejaVu Sans';
/** The OCR-B advance width as a fraction of its size: a 10 cpi pitch gives the font size. */
const OCR_B_ADVANCE = 0.723;
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

export interface HolderPrint extends MrzHolder {
  arabicSurname: string;
  arabicGivenNames: string;
  arabicFatherName: string;
  arabicMotherName: string;
  placeOfBirth: string;
  arabicPlaceOfBirth: string;
  /** YYYY-MM-DD */
  dateOfIssue: string;
}

let fontRegistered = false;
function registerOcrB(): void {
  if (fontRegistered) return;
  if (!existsSync(OCR_B_FONT_PATH) || !GlobalFonts.registerFromPath(OCR_B_FONT_PATH, OCR_B)) {
    throw new Error('the OCR-B font (Debian fonts-ocr-b) is missing: synthetic documents need it for their MRZ');
  }
  fontRegistered = true;
}

/** 12 MAR 1990: how passports print dates. */
export function printedDate(isoDate: string): string {
  return `${isoDate.slice(8, 10)} ${MONTHS[Number(isoDate.slice(5, 7)) - 1]} ${isoDate.slice(0, 4)}`;
}

function background(context: SKRSContext2D, width: number, height: number, tint: string): void {
  context.fillStyle = tint;
  context.fillRect(0, 0, width, height);
  // A faint guilloche-like pattern, so the OCR does not only ever see flat paper.
  context.strokeStyle = 'rgba(90, 120, 110, 0.12)';
  context.lineWidth = 1.5;
  for (let offset = -height; offset < width; offset += 38) {
    context.beginPath();
    for (let x = 0; x <= width; x += 20) context.lineTo(x, height / 2 + Math.sin((x + offset) / 60) * height * 0.35 + offset / 8);
    context.stroke();
  }
}

function labelled(context: SKRSContext2D, x: number, y: number, label: string, value: string, size: number): void {
  context.fillStyle = '#3d4a57';
  context.font = `${Math.round(size * 0.6)}px "${TEXT}"`;
  context.fillText(label, x, y);
  context.fillStyle = '#111111';
  context.font = `bold ${size}px "${TEXT}"`;
  context.fillText(value, x, y + size * 1.15);
}

function arabicLine(context: SKRSContext2D, right: number, y: number, text: string, size: number): void {
  context.save();
  context.direction = 'rtl';
  context.textAlign = 'right';
  context.fillStyle = '#111111';
  context.font = `${size}px "${TEXT}"`;
  context.fillText(text, right, y);
  context.restore();
}

function mrzLines(context: SKRSContext2D, lines: readonly string[], left: number, firstBaseline: number, pitch: number, lineGap: number): void {
  context.fillStyle = '#000000';
  context.font = `${(pitch / OCR_B_ADVANCE).toFixed(2)}px "${OCR_B}"`;
  lines.forEach((line, index) => context.fillText(line, left, firstBaseline + index * lineGap));
}

async function portraitBox(context: SKRSContext2D, portrait: Buffer | undefined, x: number, y: number, width: number, height: number): Promise<void> {
  context.fillStyle = '#d9dde2';
  context.fillRect(x, y, width, height);
  if (portrait) {
    const image = await loadImage(portrait);
    // Cover the box, centred, as a printed photo is cut.
    const scale = Math.max(width / image.width, height / image.height);
    const sourceWidth = width / scale;
    const sourceHeight = height / scale;
    context.drawImage(image, (image.width - sourceWidth) / 2, (image.height - sourceHeight) / 2, sourceWidth, sourceHeight, x, y, width, height);
  } else {
    // A neutral silhouette where no photo was given.
    context.fillStyle = '#a9b0b8';
    context.beginPath();
    context.arc(x + width / 2, y + height * 0.38, width * 0.22, 0, Math.PI * 2);
    context.fill();
    context.fillRect(x + width * 0.18, y + height * 0.66, width * 0.64, height * 0.34);
  }
  context.strokeStyle = '#6b7580';
  context.lineWidth = 2;
  context.strokeRect(x, y, width, height);
}

/** Passport data page, 10 px/mm (1250 × 880), portrait on the left, TD3 MRZ at the bottom. */
export async function drawPassportPage(holder: HolderPrint, mrz: readonly string[], portrait: Buffer | undefined): Promise<Canvas> {
  registerOcrB();
  const canvas = createCanvas(1250, 880);
  const context = canvas.getContext('2d');
  background(context, canvas.width, canvas.height, '#f3f0e4');
  context.fillStyle = '#1f3b2d';
  context.font = `bold 30px "${TEXT}"`;
  context.fillText('SYRIAN ARAB REPUBLIC', 50, 62);
  arabicLine(context, 1200, 62, 'الجمهورية العربية السورية', 30);
  context.font = `22px "${TEXT}"`;
  context.fillText('PASSPORT', 50, 100);
  arabicLine(context, 1200, 100, 'جواز سفر', 24);
  await portraitBox(context, portrait, 50, 140, 350, 450);

  const left = 440;
  labelled(context, left, 150, 'Type', 'P', 26);
  labelled(context, left + 140, 150, 'Country code', holder.issuingState, 26);
  labelled(context, left + 380, 150, 'Passport No.', holder.documentNumber, 26);
  labelled(context, left, 225, 'Surname', holder.surname, 30);
  labelled(context, left, 305, 'Given names', holder.givenNames, 30);
  labelled(context, left, 385, 'Nationality', 'SYRIAN', 26);
  labelled(context, left + 380, 385, 'National No.', holder.personalNumber, 26);
  labelled(context, left, 455, 'Date of birth', printedDate(holder.dateOfBirth), 26);
  labelled(context, left + 380, 455, 'Sex', holder.sex, 26);
  labelled(context, left, 525, 'Place of birth', holder.placeOfBirth, 26);
  labelled(context, left, 595, 'Date of issue', printedDate(holder.dateOfIssue), 24);
  labelled(context, left + 380, 595, 'Date of expiry', printedDate(holder.expiryDate), 24);

  const pitch = 25.4;
  mrzLines(context, mrz, (canvas.width - 44 * pitch) / 2, 780, pitch, 58);
  return canvas;
}

const CARD = { width: 1027, height: 648 };

/** ID card front, 12 px/mm: Arabic fields (what a Syrian card prints) and the photo. */
export async function drawIdCardFront(holder: HolderPrint, portrait: Buffer | undefined): Promise<Canvas> {
  const canvas = createCanvas(CARD.width, CARD.height);
  const context = canvas.getContext('2d');
  background(context, canvas.width, canvas.height, '#eef1ea');
  arabicLine(context, 990, 60, 'الجمهورية العربية السورية', 34);
  arabicLine(context, 990, 105, 'بطاقة شخصية', 30);
  await portraitBox(context, portrait, 40, 150, 260, 340);
  const right = 990;
  arabicLine(context, right, 175, `الكنية: ${holder.arabicSurname}`, 32);
  arabicLine(context, right, 235, `الاسم: ${holder.arabicGivenNames}`, 32);
  arabicLine(context, right, 295, `اسم الأب: ${holder.arabicFatherName}`, 32);
  arabicLine(context, right, 355, `اسم الأم: ${holder.arabicMotherName}`, 32);
  arabicLine(context, right, 415, `مكان الولادة: ${holder.arabicPlaceOfBirth}`, 32);
  arabicLine(context, right, 475, `تاريخ الولادة: ${holder.dateOfBirth.split('-').reverse().join('/')}`, 32);
  context.fillStyle = '#111111';
  context.font = `bold 34px "${TEXT}"`;
  context.fillText(holder.personalNumber, 40, 580);
  arabicLine(context, right, 580, 'الرقم الوطني', 28);
  return canvas;
}

/** ID card back, 12 px/mm: the Latin fields and the TD1 MRZ at the bottom. */
export function drawIdCardBack(holder: HolderPrint, mrz: readonly string[]): Canvas {
  registerOcrB();
  const canvas = createCanvas(CARD.width, CARD.height);
  const context = canvas.getContext('2d');
  background(context, canvas.width, canvas.height, '#eef1ea');
  context.fillStyle = '#1f3b2d';
  context.font = `bold 26px "${TEXT}"`;
  context.fillText('SYRIAN ARAB REPUBLIC  IDENTITY CARD', 40, 50);
  labelled(context, 40, 95, 'Surname', holder.surname, 26);
  labelled(context, 40, 165, 'Given names', holder.givenNames, 26);
  labelled(context, 40, 235, 'Card No.', holder.documentNumber, 24);
  labelled(context, 330, 235, 'Date of birth', printedDate(holder.dateOfBirth), 24);
  labelled(context, 660, 235, 'Date of expiry', printedDate(holder.expiryDate), 24);
  labelled(context, 40, 305, 'Sex', holder.sex, 24);
  labelled(context, 330, 305, 'Place of birth', holder.placeOfBirth, 24);

  const pitch = 30.48;
  mrzLines(context, mrz, (canvas.width - 30 * pitch) / 2, 500, pitch, 58);
  return canvas;
}
