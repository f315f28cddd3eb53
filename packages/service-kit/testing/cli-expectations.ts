import { expect } from 'vitest';

/** The CLI contract for a failure: exit code 1, nothing on stdout, one line on stderr matching `message`. */
export function expectCliFailure(result: { code: number | null; stdout: string; stderr: string }, message: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
}
