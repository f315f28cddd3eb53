import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * The no-enumeration bound: 20 requests for a known address and 20 for unknown ones,
 * interleaved; the medians are under 50 ms apart. `beforeEach` moves the clock an hour on, so
 * the limits never answer in place of the work.
 */
export async function expectNoTimingGap(request: (address: string) => Promise<{ statusCode: number }>, knownAddress: string, beforeEach: () => void): Promise<void> {
  const timed = async (address: string) => {
    beforeEach();
    const started = process.hrtime.bigint();
    const response = await request(address);
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    expect(response.statusCode).toBe(202);
    return elapsed;
  };
  const knownTimes: number[] = [];
  const unknownTimes: number[] = [];
  for (let round = 0; round < 20; round++) {
    knownTimes.push(await timed(knownAddress));
    unknownTimes.push(await timed(`nobody-${round}-${randomUUID()}@example.com`));
  }
  expect(Math.abs(median(knownTimes) - median(unknownTimes))).toBeLessThan(50);
}
