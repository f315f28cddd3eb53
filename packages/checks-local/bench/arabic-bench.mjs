#!/usr/bin/env node
// The Syrian national ID reader on synthetic cards: per field, the share present (accepted by the
// reader), the precision of what is present and the exact-match rate; all four names exact; the
// national number by digit set; CPU seconds and peak RSS per card, warm (the first card is not counted).
// Run after `pnpm build`:  pnpm --filter @svc/checks-local bench:arabic [-- --cards 40 --first-seed 0]
import { NATIONAL_ID_FIELDS } from '../dist/arabic/card-layout.js';
import { createArabicCardReader } from '../dist/arabic/card-reader.js';
import { generateArabicCard } from '../dist/synthetic/arabic/index.js';

const argument = (name, fallback) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const cards = argument('--cards', 40);
const firstSeed = argument('--first-seed', 0);
const NAMES = ['firstNameAr', 'surnameAr', 'fatherNameAr', 'motherNameAr'];

const reader = await createArabicCardReader();
await reader.readNationalId((await generateArabicCard(999_999, 'clean')).image);
let peakRss = process.memoryUsage().rss;

const rows = [];
for (const condition of ['clean', 'degraded']) {
  const tally = Object.fromEntries(NATIONAL_ID_FIELDS.map((field) => [field, { present: 0, right: 0 }]));
  let allNames = 0;
  const natno = { western: [0, 0], arabicIndic: [0, 0] };
  let cpuMicros = 0;
  for (let seed = firstSeed; seed < firstSeed + cards; seed += 1) {
    const card = await generateArabicCard(seed, condition);
    const before = process.cpuUsage();
    const reading = await reader.readNationalId(card.image);
    const used = process.cpuUsage(before);
    cpuMicros += used.user + used.system;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    for (const field of NATIONAL_ID_FIELDS) {
      const value = reading.fields[field];
      if (value === undefined) continue;
      tally[field].present += 1;
      if (value === card.truth[field]) tally[field].right += 1;
      else console.error(`seed ${seed} ${condition} ${card.font}: ${field} read "${value}", printed "${card.truth[field]}"`);
    }
    if (NAMES.every((field) => reading.fields[field] === card.truth[field])) allNames += 1;
    const set = card.arabicIndicDigits ? natno.arabicIndic : natno.western;
    set[1] += 1;
    if (reading.fields.nationalNumber === card.truth.nationalNumber) set[0] += 1;
  }
  rows.push({ condition, tally, allNames, natno, cpuSeconds: cpuMicros / 1e6 / cards });
}
await reader.close();

const percent = (part, whole) => (whole === 0 ? '–' : `${Math.round((part / whole) * 1000) / 10}%`);
console.log(`\n${cards} cards per condition (seeds ${firstSeed}–${firstSeed + cards - 1}), ${new Date().toISOString()}\n`);
console.log('| field | clean: present / precision / exact | degraded: present / precision / exact |');
console.log('|---|---|---|');
for (const field of NATIONAL_ID_FIELDS) {
  const cells = rows.map(({ tally }) => `${percent(tally[field].present, cards)} / ${percent(tally[field].right, tally[field].present)} / ${percent(tally[field].right, cards)}`);
  console.log(`| ${field} | ${cells.join(' | ')} |`);
}
console.log(`| all four names exact | ${rows.map((row) => percent(row.allNames, cards)).join(' | ')} |`);
console.log(`| nationalNumber exact, Western digits | ${rows.map((row) => percent(...row.natno.western)).join(' | ')} |`);
console.log(`| nationalNumber exact, Arabic-Indic digits | ${rows.map((row) => percent(...row.natno.arabicIndic)).join(' | ')} |`);
console.log(`| CPU seconds per card, warm (all threads) | ${rows.map((row) => row.cpuSeconds.toFixed(2)).join(' | ')} |`);
console.log(`\npeak RSS of the process: ${Math.round(peakRss / 1048576)} MB`);
