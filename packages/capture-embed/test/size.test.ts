import { readFileSync } from 'node:fs';
import { brotliCompressSync, constants } from 'node:zlib';
import ts from 'typescript';
import { expect, it } from 'vitest';

/** The budget for what a partner's page loads: 5 KB after brotli. */
const BUDGET_BYTES = 5 * 1024;

it('ships at most 5 KB brotli, unminified and with its comments, as the tarball has it, with no runtime dependencies', () => {
  const source = readFileSync(new URL('../src/index.ts', import.meta.url), 'utf8');
  // The same compilation as `pnpm build` (the package's own build may not have run before its tests).
  const { outputText } = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } });
  const brotli = brotliCompressSync(outputText, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  console.log(`capture-embed: ${outputText.length} bytes, ${brotli} bytes brotli`);
  expect(brotli).toBeLessThanOrEqual(BUDGET_BYTES);
  expect(outputText).not.toMatch(/\bimport\b[^;]*\bfrom\b/);
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  expect(manifest.dependencies ?? {}).toEqual({});
});
