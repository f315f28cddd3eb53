/**
 * Exact decimal arithmetic for stored values: numbers become fixed-point BigInts with
 * SCALE decimals, so a mid computed from buy and sell never picks up binary float noise.
 */
const SCALE = 8;
const FACTOR = 10n ** BigInt(SCALE);

/** The smallest positive value the store keeps; anything smaller would be stored as 0. */
export const MIN_STORED_AMOUNT = 0.00000001;
/** The largest rate or price accepted: JavaScript writes larger numbers with an exponent. */
export const MAX_AMOUNT = 1e12;

/** Why a rate or price cannot be stored, or null when it can. */
export function amountProblem(value: number): string | null {
  if (!Number.isFinite(value) || value < MIN_STORED_AMOUNT) return `must be at least ${MIN_STORED_AMOUNT.toFixed(8)} (values are stored with 8 decimals)`;
  if (value > MAX_AMOUNT) return 'must be at most 1000000000000';
  return null;
}

export function toFixedPoint(value: number | string): bigint {
  const text = typeof value === 'number' ? value.toFixed(SCALE) : value;
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text.trim());
  if (!match) throw new RangeError(`not a decimal number: ${text}`);
  const [, sign, whole = '0', fraction = ''] = match;
  const scaled = BigInt(whole) * FACTOR + BigInt(fraction.padEnd(SCALE, '0').slice(0, SCALE) || '0');
  return sign === '-' ? -scaled : scaled;
}

export function fromFixedPoint(value: bigint): string {
  const negative = value < 0n;
  const absolute = negative ? -value : value;
  const whole = absolute / FACTOR;
  const fraction = (absolute % FACTOR).toString().padStart(SCALE, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Exact midpoint of buy and sell, as a numeric string for storage. */
export function midpoint(buy: number | string, sell: number | string): string {
  return fromFixedPoint((toFixedPoint(buy) + toFixedPoint(sell)) / 2n);
}

export function decimalString(value: number): string {
  return fromFixedPoint(toFixedPoint(value));
}
