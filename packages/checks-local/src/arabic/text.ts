/**
 * Arabic text as the reader stores and compares it. Stored values are for display: Unicode NFC,
 * no tatweel, otherwise exactly as printed. Comparison (agreement between readings) folds the
 * differences OCR models disagree on without the print differing: hamza seats, alef maqsura,
 * Persian look-alike letters and digits, harakat.
 */
const TATWEEL = /\u0640/g;
const HARAKAT = /[\u064B-\u065F\u0670]/g;
const ARABIC_INDIC_ZERO = 0x0660;
const PERSIAN_ZERO = 0x06f0;

/** What a stored Arabic value is: NFC, no tatweel, single spaces. */
export function displayForm(text: string): string {
  return text.normalize('NFC').replace(TATWEEL, '').replace(/\s+/g, ' ').trim();
}

/** Arabic-Indic (٠–٩) and Persian (۰–۹) digits as Western digits; other characters unchanged. */
export function westernDigits(text: string): string {
  return text.replace(/[\u0660-\u0669\u06F0-\u06F9]/g, (digit) => {
    const code = digit.charCodeAt(0);
    return String(code >= PERSIAN_ZERO ? code - PERSIAN_ZERO : code - ARABIC_INDIC_ZERO);
  });
}

/**
 * The form two readings must share for a value to be stored: the display form with harakat and
 * the Persian and Urdu letter forms the script model emits folded to the Arabic letters they draw
 * (a final ی is dotless, ى; elsewhere ي; ک ك, ۃ ة, ھ ه); hamza seats and ى/ي must agree, since
 * the stored value keeps them as printed.
 */
export function agreementForm(text: string): string {
  return displayForm(text)
    .replace(HARAKAT, '')
    .replace(/ی(?=\s|$)/gu, 'ى')
    .replace(/ی/g, 'ي')
    .replace(/ک/g, 'ك')
    .replace(/ۃ/g, 'ة')
    .replace(/ھ/g, 'ه');
}

/** The form two readings are compared in for a looser match: display form folded for letters models confuse without the print differing. */
export function comparisonForm(text: string): string {
  return westernDigits(displayForm(text.normalize('NFKC')).replace(HARAKAT, ''))
    .replace(/[أإآٱ]/g, 'ا')
    .replace(/ى/g, 'ي')
    .replace(/ی/g, 'ي')
    .replace(/ک/g, 'ك')
    .replace(/[^\p{L}\p{N} ]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Whether a reading looks like Arabic words: only Arabic letters and spaces, every word at least
 * three letters (Syrian names and places are; a two-letter reading is nearly always a name that
 * lost a letter, عمر read as مر).
 */
export function isArabicWords(text: string): boolean {
  return /^[\u0621-\u064A\u0671-\u06D3 ]+$/u.test(text) && text.split(' ').every((word) => word.length >= 3 || word === 'عبد' || word === 'أبو');
}

/** Levenshtein distance in code points (letters, not UTF-16 units). */
export function editDistance(first: string, second: string): number {
  const a = [...first];
  const b = [...second];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let row = 1; row <= a.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= b.length; column += 1) {
      current[column] = Math.min(previous[column]! + 1, current[column - 1]! + 1, previous[column - 1]! + (a[row - 1] === b[column - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
