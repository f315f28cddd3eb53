/**
 * Invented Syrian holders for synthetic cards: Arabic names as Syrian registries print them, each
 * with the Latin spelling a passport's MRZ would carry, drawn by a seeded generator so a card set
 * is the same on every run.
 */
export interface ArabicName {
  arabic: string;
  latin: string;
}

const FIRST_MALE: ArabicName[] = [
  { arabic: 'محمد', latin: 'MOHAMMAD' }, { arabic: 'أحمد', latin: 'AHMAD' }, { arabic: 'خالد', latin: 'KHALED' },
  { arabic: 'عمر', latin: 'OMAR' }, { arabic: 'يوسف', latin: 'YOUSSEF' }, { arabic: 'عبد الرحمن', latin: 'ABDULRAHMAN' },
  { arabic: 'إبراهيم', latin: 'IBRAHIM' }, { arabic: 'سامر', latin: 'SAMER' }, { arabic: 'مصطفى', latin: 'MOUSTAFA' },
  { arabic: 'حسان', latin: 'HASSAN' }, { arabic: 'طارق', latin: 'TAREK' }, { arabic: 'باسل', latin: 'BASEL' },
];
const FIRST_FEMALE: ArabicName[] = [
  { arabic: 'فاطمة', latin: 'FATIMA' }, { arabic: 'مريم', latin: 'MARIAM' }, { arabic: 'رنا', latin: 'RANA' },
  { arabic: 'سلمى', latin: 'SALMA' }, { arabic: 'إيمان', latin: 'IMAN' }, { arabic: 'هدى', latin: 'HUDA' },
  { arabic: 'نور', latin: 'NOUR' }, { arabic: 'لينا', latin: 'LINA' }, { arabic: 'ريم', latin: 'REEM' }, { arabic: 'سوسن', latin: 'SAWSAN' },
];
const SURNAMES: ArabicName[] = [
  { arabic: 'الشامي', latin: 'ALSHAMI' }, { arabic: 'الحلبي', latin: 'ALHALABI' }, { arabic: 'درويش', latin: 'DARWISH' },
  { arabic: 'قصاب', latin: 'KASSAB' }, { arabic: 'الإدلبي', latin: 'ALIDLIBI' }, { arabic: 'حداد', latin: 'HADDAD' },
  { arabic: 'العلي', latin: 'ALALI' }, { arabic: 'السيد', latin: 'ALSAYED' }, { arabic: 'نصر', latin: 'NASR' },
  { arabic: 'الخطيب', latin: 'ALKHATIB' }, { arabic: 'عثمان', latin: 'OTHMAN' }, { arabic: 'المصري', latin: 'ALMASRI' },
];
const PLACES = ['دمشق', 'حلب', 'حمص', 'حماة', 'اللاذقية', 'إدلب', 'طرطوس', 'درعا', 'دير الزور', 'الرقة', 'السويداء', 'القنيطرة'];
const QUARTERS = ['الميدان', 'المزة', 'باب توما', 'الصالحية', 'القصاع', 'الشعار', 'الخالدية', 'الجميلية'];

export interface SyrianHolder {
  firstName: ArabicName;
  surname: ArabicName;
  fatherName: ArabicName;
  motherName: ArabicName;
  birthPlaceAr: string;
  dateOfBirth: string;
  nationalNumber: string;
  civilRegistryAr: string;
}

/** mulberry32: small, fast and the same everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

export function syrianHolder(random: () => number): SyrianHolder {
  const female = random() < 0.5;
  const governorate = 1 + Math.floor(random() * 14);
  const year = 1950 + Math.floor(random() * 55);
  const month = 1 + Math.floor(random() * 12);
  const day = 1 + Math.floor(random() * 28);
  let rest = '';
  for (let index = 0; index < 9; index += 1) rest += String(Math.floor(random() * 10));
  const place = pick(random, PLACES);
  return {
    firstName: pick(random, female ? FIRST_FEMALE : FIRST_MALE),
    surname: pick(random, SURNAMES),
    fatherName: pick(random, FIRST_MALE),
    motherName: pick(random, FIRST_FEMALE),
    birthPlaceAr: place,
    dateOfBirth: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    nationalNumber: `${String(governorate).padStart(2, '0')}${rest}`,
    civilRegistryAr: `${place} ${pick(random, QUARTERS)} ${1 + Math.floor(random() * 400)}`,
  };
}
