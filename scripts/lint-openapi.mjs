#!/usr/bin/env node
// Lints the OpenAPI documents the services actually serve (GET /docs/json, and identity's
// staff document), not a copy that could drift: starts each built service
// (services/*/dist/server.js) on the embedded default with a free port and a temporary
// DATA_DIR, saves its documents, then runs `redocly lint` (root redocly.yaml: the recommended
// rules) on all of them. Any error or
// warning fails. Node built-ins only; needs `pnpm build` first.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtServices, root, servedDocuments } from './served-openapi.mjs';

// fx documents its admin routes only when they exist, i.e. with an admin token.
const extraEnvironment = { fx: { FX_ADMIN_TOKEN: 'openapi-lint-admin-token' } };

/** Saves every document the service serves (identity: the partner and the staff document); returns their files. */
async function savedDocuments(service, outputDir) {
  return (await servedDocuments(service, extraEnvironment[service])).map(([name, text]) => {
    const file = join(outputDir, `${service}.${name}.json`);
    writeFileSync(file, text);
    return file;
  });
}

const services = builtServices();
if (services.length === 0) {
  console.error('lint-openapi: no services/*/dist/server.js; run `pnpm build` first');
  process.exit(1);
}
const outputDir = process.env.OPENAPI_OUTPUT_DIR ?? mkdtempSync(join(tmpdir(), 'openapi-lint-'));
let files;
try {
  files = (await Promise.all(services.map((service) => savedDocuments(service, outputDir)))).flat();
} catch (error) {
  console.error(`lint-openapi: ${error.message}`);
  process.exit(1);
}
// One redocly run per document: its JSON report (one object per document) is read here,
// because redocly exits 0 on warnings and warnings fail this lint too.
const totals = { errors: 0, warnings: 0 };
for (const file of files) {
  const run = spawnSync('pnpm', ['exec', 'redocly', 'lint', '--config', join(root, 'redocly.yaml'), '--max-problems', '1000', '--format', 'json', file], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
  });
  let report;
  try {
    report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
  } catch {
    console.error(`lint-openapi: cannot read redocly's report on ${file}:\n${run.stdout}${run.stderr}`);
    process.exit(1);
  }
  totals.errors += report.totals.errors;
  totals.warnings += report.totals.warnings;
  console.log(`${file}: ${report.totals.errors} errors, ${report.totals.warnings} warnings`);
  for (const problem of report.problems) {
    const where = problem.location.map((location) => location.pointer).join(', ');
    console.log(`  ${problem.severity} ${problem.ruleId} ${where}: ${problem.message}`);
  }
}
if (!process.env.OPENAPI_OUTPUT_DIR) rmSync(outputDir, { recursive: true, force: true });
if (totals.errors > 0 || totals.warnings > 0) {
  console.error(`lint-openapi: ${services.join(', ')}: ${totals.errors} errors, ${totals.warnings} warnings (both fail)`);
  process.exit(1);
}
console.log(`lint-openapi: ${services.join(', ')}: clean`);
