/**
 * Where a Syrian national ID card's front prints each field, once the card is warped flat to
 * 1000 × 630 px (ID-1 at about 11.7 px/mm). Labels sit on the right (Arabic reads right to left),
 * values are right-aligned at VALUE_RIGHT; a field's box spans the value column of its row.
 */
export const CARD_WIDTH = 1000;
export const CARD_HEIGHT = 630;
export const VALUE_RIGHT = 760;
export const LABEL_RIGHT = 960;
export const VALUE_SIZE = 32;

export const NATIONAL_ID_FIELDS = ['firstNameAr', 'surnameAr', 'fatherNameAr', 'motherNameAr', 'birthPlaceAr', 'dateOfBirth', 'civilRegistryAr', 'nationalNumber'] as const;
export type NationalIdField = (typeof NATIONAL_ID_FIELDS)[number];

export interface FieldRegion {
  field: NationalIdField;
  label: string;
  /** Text baseline of the row. */
  baseline: number;
  box: { x: number; y: number; width: number; height: number };
}

const LABELS: Record<NationalIdField, string> = {
  firstNameAr: 'الاسم',
  surnameAr: 'النسبة',
  fatherNameAr: 'اسم الأب',
  motherNameAr: 'اسم الأم',
  birthPlaceAr: 'محل الولادة',
  dateOfBirth: 'تاريخ الولادة',
  civilRegistryAr: 'القيد',
  nationalNumber: 'الرقم الوطني',
};

const FIRST_BASELINE = 170;
const ROW_STEP = 57;

export const NATIONAL_ID_LAYOUT: readonly FieldRegion[] = NATIONAL_ID_FIELDS.map((field, row) => {
  const baseline = FIRST_BASELINE + row * ROW_STEP;
  return { field, label: LABELS[field], baseline, box: { x: 280, y: baseline - 42, width: VALUE_RIGHT + 16 - 280, height: 56 } };
});
