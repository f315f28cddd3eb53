/**
 * Synthetic Syrian passports (TD3) and national ID cards (TD1 on the back), drawn at run time
 * with real ICAO check digits, for the OCR tests, the `samples` command and the bench. Each comes
 * with the fields a perfect read must return, and can be photographed badly (turned, shrunk,
 * noisy, JPEG) or printed with a wrong check digit. The people are invented from seeded lists.
 */
import type { DocumentType, EvidenceBytes } from '../contract.js';
import { photographed, seededRandom, type Degradation } from './document-degrade.js';
import { td1Lines, td3Lines, type MrzTamper } from './document-mrz.js';
import { drawIdCardBack, drawIdCardFront, drawPassportPage, type HolderPrint } from './document-pages.js';

export type { Degradation } from './document-degrade.js';
export type { MrzTamper } from './document-mrz.js';
export type { HolderPrint } from './document-pages.js';

export interface SyntheticDocumentOptions {
  documentType: DocumentType;
  /** Picks the invented person and the noise; the same seed gives the same document. */
  seed?: number;
  /** Overrides for the invented person (e.g. a fixed name). */
  holder?: Partial<HolderPrint>;
  /** A face photo (JPEG/PNG) printed where the passport photo goes; a silhouette otherwise. */
  portrait?: Buffer;
  degradation?: Degradation;
  /** Print this check digit wrong: such an MRZ must never read valid. */
  tamper?: MrzTamper;
  /** Print these values in the visual zone instead of the holder's (the MRZ keeps the holder's): a page that contradicts itself. */
  printed?: Partial<HolderPrint>;
}

export interface SyntheticDocument {
  documentType: DocumentType;
  /** Passport: the data page. ID card: the side with the photo and the Arabic fields. */
  front: EvidenceBytes;
  /** ID card: the side with the MRZ. Passport: null. */
  back: EvidenceBytes | null;
  holder: HolderPrint;
  /** The MRZ as printed (with the wrong digit when tampered). */
  mrzLines: string[];
  /** What a perfect read returns as OcrAnswer.fields (MRZ fields, names as the MRZ spells them). */
  expectedFields: Record<string, string>;
}

const PEOPLE: ReadonlyArray<{ latin: string; arabic: string; sex: 'M' | 'F' }> = [
  { latin: 'AHMAD', arabic: 'أحمد', sex: 'M' },
  { latin: 'MOHAMMAD KHALED', arabic: 'محمد خالد', sex: 'M' },
  { latin: 'OMAR', arabic: 'عمر', sex: 'M' },
  { latin: 'YOUSEF', arabic: 'يوسف', sex: 'M' },
  { latin: 'SAMER', arabic: 'سامر', sex: 'M' },
  { latin: 'HASSAN ALI', arabic: 'حسن علي', sex: 'M' },
  { latin: 'LAYLA', arabic: 'ليلى', sex: 'F' },
  { latin: 'RANIA', arabic: 'رانيا', sex: 'F' },
  { latin: 'FATIMA ZAHRA', arabic: 'فاطمة الزهراء', sex: 'F' },
  { latin: 'NOUR', arabic: 'نور', sex: 'F' },
  { latin: 'HIBA', arabic: 'هبة', sex: 'F' },
  { latin: 'MAYA', arabic: 'مايا', sex: 'F' },
];
const SURNAMES: ReadonlyArray<{ latin: string; arabic: string }> = [
  { latin: 'KHOURY', arabic: 'خوري' },
  { latin: 'HADDAD', arabic: 'حداد' },
  { latin: 'AL HALABI', arabic: 'الحلبي' },
  { latin: 'MASRI', arabic: 'مصري' },
  { latin: 'SABBAGH', arabic: 'صباغ' },
  { latin: 'AL ATTAR', arabic: 'العطار' },
  { latin: 'QASSAB', arabic: 'قصاب' },
  { latin: 'JABER', arabic: 'جابر' },
];
const FATHERS = ['محمود', 'سليم', 'عبد الله', 'فؤاد', 'جميل'];
const MOTHERS = ['سلمى', 'هدى', 'مريم', 'سعاد', 'وفاء'];
const PLACES: ReadonlyArray<{ latin: string; arabic: string }> = [
  { latin: 'DAMASCUS', arabic: 'دمشق' },
  { latin: 'ALEPPO', arabic: 'حلب' },
  { latin: 'HOMS', arabic: 'حمص' },
  { latin: 'LATAKIA', arabic: 'اللاذقية' },
  { latin: 'HAMA', arabic: 'حماة' },
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function digits(random: () => number, count: number): string {
  let text = '';
  for (let index = 0; index < count; index++) text += String(Math.floor(random() * 10));
  return text;
}

function isoDate(random: () => number, fromYear: number, toYear: number): string {
  const year = fromYear + Math.floor(random() * (toYear - fromYear + 1));
  const month = 1 + Math.floor(random() * 12);
  const day = 1 + Math.floor(random() * 28);
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** An invented Syrian holder; passports are numbered N + 8 digits, cards 9 digits. */
export function syntheticHolder(documentType: DocumentType, seed: number): HolderPrint {
  const random = seededRandom(seed * 7919 + 17);
  const person = pick(random, PEOPLE);
  const surname = pick(random, SURNAMES);
  const place = pick(random, PLACES);
  const dateOfIssue = isoDate(random, 2019, 2024);
  const validYears = documentType === 'SyrianPassport' ? 6 : 10;
  return {
    surname: surname.latin,
    givenNames: person.latin,
    arabicSurname: surname.arabic,
    arabicGivenNames: person.arabic,
    arabicFatherName: pick(random, FATHERS),
    arabicMotherName: pick(random, MOTHERS),
    placeOfBirth: place.latin,
    arabicPlaceOfBirth: place.arabic,
    documentNumber: documentType === 'SyrianPassport' ? `N${digits(random, 8)}` : digits(random, 9),
    nationality: 'SYR',
    issuingState: 'SYR',
    dateOfBirth: isoDate(random, 1955, 2005),
    sex: person.sex,
    dateOfIssue,
    expiryDate: `${Number(dateOfIssue.slice(0, 4)) + validYears}${dateOfIssue.slice(4)}`,
    personalNumber: `0${digits(random, 10)}`,
  };
}

/** The fields a perfect read returns: names as the MRZ spells them (fillers as spaces). */
export function expectedFieldsOf(holder: HolderPrint): Record<string, string> {
  const mrzName = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]+/g, ' ').trim();
  return {
    documentNumber: holder.documentNumber,
    surname: mrzName(holder.surname),
    givenNames: mrzName(holder.givenNames),
    nationality: holder.nationality,
    issuingState: holder.issuingState,
    dateOfBirth: holder.dateOfBirth,
    sex: holder.sex,
    expiryDate: holder.expiryDate,
    personalNumber: holder.personalNumber,
  };
}

/** One synthetic document, both sides as upload bytes, with what a perfect read returns. */
export async function generateSyntheticDocument(options: SyntheticDocumentOptions): Promise<SyntheticDocument> {
  const seed = options.seed ?? 1;
  const holder: HolderPrint = { ...syntheticHolder(options.documentType, seed), ...options.holder };
  const degradation = options.degradation ?? {};
  const tamper = options.tamper ?? null;
  const printed: HolderPrint = { ...holder, ...options.printed };
  if (options.documentType === 'SyrianPassport') {
    const lines = td3Lines(holder, tamper);
    const page = await drawPassportPage(printed, lines, options.portrait);
    return { documentType: options.documentType, front: await photographed(page, degradation, seed), back: null, holder, mrzLines: lines, expectedFields: expectedFieldsOf(holder) };
  }
  const lines = td1Lines(holder, tamper);
  const front = await drawIdCardFront(printed, options.portrait);
  const back = drawIdCardBack(printed, lines);
  return {
    documentType: options.documentType,
    front: await photographed(front, degradation, seed),
    back: await photographed(back, degradation, seed + 1),
    holder,
    mrzLines: lines,
    expectedFields: expectedFieldsOf(holder),
  };
}
