/**
 * Whether an Arabic name and a Latin spelling of it (a passport's MRZ, a partner's record) are the
 * same name. Both sides are reduced to consonant skeletons; common names also go through a table
 * of the spellings passports use, since abbreviations (MHD) and assimilated articles
 * (ABDURRAHMAN) defeat a skeleton. Short skeletons say little (علي and وائل are both "L"), so a
 * match or mismatch on them is "uncertain", never a fraud signal.
 */
import { comparisonForm, editDistance } from './text.js';

export type NameAgreement = 'agree' | 'disagree' | 'uncertain';

const ARABIC_CONSONANTS: Record<string, string> = {
  ب: 'B', ت: 'T', ث: 'T', ط: 'T', ج: 'J', ح: 'H', ه: 'H', خ: 'X', د: 'D', ذ: 'D', ض: 'D', ر: 'R', ز: 'Z', ظ: 'Z',
  س: 'S', ص: 'S', ش: '$', غ: 'G', ف: 'F', ق: 'K', ك: 'K', ل: 'L', م: 'M', ن: 'N',
};

/** Spellings passports use for common names, keyed by the Arabic comparison form. */
const VARIANTS: Record<string, readonly string[]> = {
  محمد: ['MOHAMMAD', 'MOHAMMED', 'MUHAMMAD', 'MUHAMMED', 'MOHAMAD', 'MOHAMED', 'MOHAMMAD', 'MHD', 'MOHD', 'MOUHAMAD', 'MUHAMAD'],
  احمد: ['AHMAD', 'AHMED', 'AHMET'],
  'عبد الرحمن': ['ABDULRAHMAN', 'ABDELRAHMAN', 'ABDURRAHMAN', 'ABDALRAHMAN', 'ABDUL RAHMAN', 'ABD ALRAHMAN', 'ABDUL-RAHMAN'],
  'عبد الله': ['ABDULLAH', 'ABDALLAH', 'ABDELLAH', 'ABDULLA', 'ABD ALLAH'],
  يوسف: ['YOUSSEF', 'YOUSEF', 'YUSUF', 'YOUSSOUF', 'YOUSIF'],
  علي: ['ALI', 'ALY'],
  وائل: ['WAEL', 'WA IL', 'WAIL'],
  ايمان: ['IMAN', 'EMAN', 'EIMAN'],
  امنه: ['AMINA', 'AMNA', 'AMENA', 'AMINEH', 'AMNEH'],
  فاطمه: ['FATIMA', 'FATMEH', 'FATEMEH', 'FATMA', 'FATIMEH'],
  مريم: ['MARIAM', 'MARYAM', 'MIRIAM', 'MERIAM'],
};

/** The comparison form with final ة read as ه, so the variant table and skeletons see one spelling. */
function arabicKey(arabic: string): string {
  return comparisonForm(arabic).replace(/ة/g, 'ه');
}

export function arabicSkeleton(arabic: string): string {
  let text = arabicKey(arabic);
  text = text
    .split(' ')
    .map((word) => (word.startsWith('ال') && word.length > 3 ? word.slice(2) : word))
    .join('');
  text = text.replace(/ه$/u, '');
  let skeleton = '';
  for (const letter of text) {
    const mapped = ARABIC_CONSONANTS[letter];
    if (mapped !== undefined && !skeleton.endsWith(mapped)) skeleton += mapped;
  }
  return skeleton;
}

/** The Latin skeleton, and (when the spelling starts with AL/EL) the skeleton without that article. */
export function latinSkeletons(latin: string): string[] {
  const letters = latin.toUpperCase().replace(/[^A-Z]/g, '');
  const withoutArticle = letters.replace(/^(AL|EL)(?=[A-Z]{3,})/, '');
  return withoutArticle === letters ? [latinSkeleton(letters)] : [latinSkeleton(withoutArticle), latinSkeleton(letters)];
}

function latinSkeleton(letters: string): string {
  let text = letters;
  text = text.replace(/KH/g, 'X').replace(/SH|CH/g, '$').replace(/TH/g, 'T').replace(/DH/g, 'D').replace(/GH/g, 'G');
  text = text.replace(/[QC]/g, 'K').replace(/G/g, 'J').replace(/V/g, 'F').replace(/P/g, 'B');
  text = text.replace(/H$/, '');
  let skeleton = '';
  for (const letter of text.replace(/[AEIOUYW]/g, '')) {
    if (!skeleton.endsWith(letter)) skeleton += letter;
  }
  return skeleton;
}

/** Equal skeletons shorter than this match too many different names to prove anything. */
const SHORT_SKELETON = 3;

/** Whether one Arabic name and one Latin spelling are the same name. */
export function compareArabicLatin(arabic: string, latin: string): NameAgreement {
  const variants = VARIANTS[arabicKey(arabic)];
  const latinKey = latin.toUpperCase().replace(/[^A-Z ]/g, '').trim();
  if (variants?.some((variant) => variant.replace(/\s/g, '') === latinKey.replace(/\s/g, ''))) return 'agree';
  const arabicBones = arabicSkeleton(arabic);
  const latinBones = latinSkeletons(latin);
  if (latinBones.includes(arabicBones)) return arabicBones.length >= SHORT_SKELETON ? 'agree' : 'uncertain';
  // One consonant off is as likely a transliteration habit as another name; a one-letter skeleton proves nothing.
  const distance = Math.min(...latinBones.map((bones) => editDistance(arabicBones, bones)));
  return Math.min(arabicBones.length, ...latinBones.map((bones) => bones.length)) >= 2 && distance >= 2 ? 'disagree' : 'uncertain';
}

export interface NameDisagreement {
  field: 'firstNameAr' | 'surnameAr';
  arabic: string;
  latin: string;
}

/**
 * Where a document's Arabic names clearly contradict its Latin ones (the MRZ's surname and first
 * given name); an uncertain comparison is not a disagreement.
 */
export function nameDisagreements(fields: Record<string, string | undefined>): NameDisagreement[] {
  const pairs = [
    { field: 'firstNameAr' as const, arabic: fields.firstNameAr, latin: fields.givenNames?.trim().split(/\s+/)[0] },
    { field: 'surnameAr' as const, arabic: fields.surnameAr, latin: fields.surname },
  ];
  return pairs.flatMap(({ field, arabic, latin }) => (arabic && latin && compareArabicLatin(arabic, latin) === 'disagree' ? [{ field, arabic, latin }] : []));
}
