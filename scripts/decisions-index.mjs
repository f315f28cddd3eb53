#!/usr/bin/env node
// Regenerates docs/decisions/README.md, the index of the decision records, from the records themselves.
// `--check` writes nothing and exits 1 when the index on disk is not what the records give (run by `pnpm lint`),
// so a record added without regenerating the index fails the lint rather than going unlisted.
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'decisions');
const indexPath = join(dir, 'README.md');
const UNSORTED = 'Other (records without an `Area:` line)';

/** One record's number, title, status and area, read from its file. */
function readRecord(file) {
  const text = readFileSync(join(dir, file), 'utf8');
  const number = file.slice(0, 4);
  const heading = /^#\s+(.+)$/m.exec(text)?.[1].trim();
  const title = heading
    ? heading.replace(/^\d{4}[.:]?\s*/, '')
    : file.slice(5, -3).replace(/-/g, ' ');
  const status = /^Status:\s*(.+)$/im.exec(text)?.[1].trim() ?? 'unknown';
  const area = /^Area:\s*(.+)$/m.exec(text)?.[1].trim() ?? UNSORTED;
  return { number, file, title, status, area };
}

export function renderIndex() {
  const records = readdirSync(dir)
    .filter((f) => /^\d{4}-.+\.md$/.test(f))
    .sort()
    .map(readRecord);
  const areas = new Map();
  for (const r of records) {
    if (!areas.has(r.area)) areas.set(r.area, []);
    areas.get(r.area).push(r);
  }
  // Areas in the order of their first record, so the index reads like the project's history.
  const ordered = [...areas.entries()].sort(([a, ra], [b, rb]) =>
    a === UNSORTED ? 1 : b === UNSORTED ? -1 : ra[0].number.localeCompare(rb[0].number),
  );
  const esc = (s) => s.replace(/\|/g, '\\|');
  const lines = [
    '# Decision records',
    '',
    'One file per decision where the specs are silent: `NNNN-title.md` with a first line `Status: accepted`',
    '(or `Status: superseded by NNNN`), an optional `Area:` line, and the sections `## Context`, `## Decision`,',
    '`## Consequences`. This index is generated: run `node scripts/decisions-index.mjs` after adding a record',
    '(`pnpm lint` fails while it is stale).',
    '',
    `${records.length} records.`,
    '',
  ];
  for (const [area, rs] of ordered) {
    lines.push(`## ${area}`, '', '| No. | Decision | Status |', '| --- | --- | --- |');
    for (const r of rs) lines.push(`| ${r.number} | [${esc(r.title)}](${r.file}) | ${esc(r.status)} |`);
    lines.push('');
  }
  return lines.join('\n');
}

const wanted = renderIndex();
if (process.argv.includes('--check')) {
  const current = existsSync(indexPath) ? readFileSync(indexPath, 'utf8') : '';
  if (current !== wanted) {
    console.error('docs/decisions/README.md is stale: run `node scripts/decisions-index.mjs` and commit the result.');
    process.exit(1);
  }
} else {
  writeFileSync(indexPath, wanted);
}
