import { z } from 'zod';
import { MAX_AMOUNT, MIN_STORED_AMOUNT } from '../domain/rates/decimal.js';

/**
 * A positive rate or price: at least the smallest value the store keeps (a smaller one would be
 * stored as 0 and break every later change check) and at most 10^12 (JavaScript writes larger
 * numbers with an exponent, which the exact decimal code refuses). One schema for every such input.
 */
export const positiveAmount = z
  .number({ error: 'must be a number' })
  .min(MIN_STORED_AMOUNT, `must be at least ${MIN_STORED_AMOUNT.toFixed(8)} (values are stored with 8 decimals)`)
  .max(MAX_AMOUNT, 'must be at most 1000000000000');
