// The soak's report: time series bucketed from the recorded requests and samples, a JSON summary,
// and a small static HTML page of SVG charts (no script, so it opens anywhere, CSP or not): throughput,
// latency percentiles, queue depths and RSS over time, with the faults as vertical markers.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentiles } from '../bench/out-of-process.mjs';

const BUCKET_MS = 5000;
const OUTCOMES = ['approved', 'review', 'rejected', 'failed', 'other'];

/** Requests per second and latency percentiles per 5 s bucket, from `startedAt`. */
export function requestSeries(requests, startedAt) {
  const buckets = new Map();
  for (const entry of requests) {
    const bucket = Math.floor((entry.at - startedAt) / BUCKET_MS);
    if (!buckets.has(bucket)) buckets.set(bucket, []);
    buckets.get(bucket).push(entry);
  }
  return [...buckets.keys()].sort((a, b) => a - b).map((bucket) => {
    const entries = buckets.get(bucket);
    const latency = percentiles(entries.filter((entry) => !entry.connectionError).map((entry) => entry.ms));
    return { t: (bucket * BUCKET_MS) / 1000, rps: entries.length / (BUCKET_MS / 1000), p50: latency.p50, p95: latency.p95, p99: latency.p99 };
  });
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#17becf'];

/** One SVG line chart: `series` is [{label, points: [[seconds, value]]}]; faults are red dashed lines. */
function chart(title, unit, series, faults, durationSeconds) {
  const width = 900;
  const height = 220;
  const left = 60;
  const maxValue = Math.max(1, ...series.flatMap((line) => line.points.map(([, value]) => value ?? 0)));
  const x = (seconds) => left + (seconds / Math.max(1, durationSeconds)) * (width - left - 10);
  const y = (value) => height - 25 - (value / maxValue) * (height - 45);
  const lines = series
    .map((line, index) => `<polyline fill="none" stroke="${COLORS[index % COLORS.length]}" stroke-width="1.5" points="${line.points.filter(([, value]) => value !== null).map(([t, value]) => `${x(t).toFixed(1)},${y(value).toFixed(1)}`).join(' ')}"/>`)
    .join('');
  const markers = faults.map((fault) => `<line x1="${x(fault.t).toFixed(1)}" x2="${x(fault.t).toFixed(1)}" y1="15" y2="${height - 25}" stroke="#c00" stroke-dasharray="3,3"><title>${fault.t}s ${fault.kind} ${fault.target}</title></line>`).join('');
  const legend = series.map((line, index) => `<tspan fill="${COLORS[index % COLORS.length]}">■ ${line.label} </tspan>`).join('');
  return `<h2>${title}</h2><svg width="${width}" height="${height + 20}" role="img" aria-label="${title}">
<text x="${left}" y="12" font-size="11">${unit}: max ${Number(maxValue.toFixed(1))}</text>${markers}${lines}
<line x1="${left}" x2="${width - 10}" y1="${height - 25}" y2="${height - 25}" stroke="#999"/>
<text x="${left}" y="${height - 8}" font-size="11">0 s</text><text x="${width - 60}" y="${height - 8}" font-size="11">${durationSeconds} s</text>
<text x="${left}" y="${height + 12}" font-size="11">${legend}</text></svg>`;
}

export function writeReport(outDir, summary, { series, queueSamples, rssSamples, faults, startedAt, durationSeconds }) {
  writeFileSync(join(outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const seconds = (at) => Math.round((at - startedAt) / 1000);
  const faultMarks = faults.map((fault) => ({ t: seconds(fault.at), kind: fault.kind, target: fault.target }));
  const rows = summary.invariants.map((entry) => `<tr><td>${entry.ok ? 'ok' : '<b>BROKEN</b>'}</td><td>${entry.name}</td><td>${entry.count}</td><td><code>${JSON.stringify(entry.detail).slice(0, 400).replaceAll('<', '&lt;')}</code></td></tr>`).join('');
  // The per-kill duplicates in full: the invariants table cuts each detail at 400 characters.
  const perKill = summary.invariants.find((entry) => Array.isArray(entry.detail?.perKill))?.detail;
  const killRows = (perKill?.perKill ?? []).map((kill) => `<tr><td>${seconds(kill.at)} s</td><td>${kill.target}</td><td>${kill.duplicates}</td></tr>`).join('');
  const killTable = perKill
    ? `<h2>Duplicate deliveries per delivery-worker kill</h2>
<p>${perKill.duplicates} deliveries received more than once in all; worst kill ${perKill.worstKill}, mean ${perKill.meanPerKill}; ${perKill.notAfterAWorkerKill} repeats followed no worker kill.</p>
<table border="1" cellspacing="0" cellpadding="4"><tr><th>kill at</th><th>worker</th><th>duplicates</th></tr>${killRows}</table>`
    : '';
  // What the on-CPU checks made of each live input kind, from the database at the end.
  const kindRows = Object.entries(summary.liveCases.byKind).map(([kind, counts]) => `<tr><td>${kind}</td>${OUTCOMES.map((outcome) => `<td>${counts[outcome]}</td>`).join('')}</tr>`).join('');
  const kindTable = `<h2>Live cases by input kind</h2>
<table border="1" cellspacing="0" cellpadding="4"><tr><th>input</th>${OUTCOMES.map((outcome) => `<th>${outcome}</th>`).join('')}</tr>${kindRows}</table>`;
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Soak ${summary.passed ? 'passed' : 'FAILED'}</title>
<body style="font-family:sans-serif;max-width:960px;margin:auto">
<h1>Soak: ${summary.passed ? 'passed' : 'FAILED'}</h1>
<p>${summary.minutes} minutes, faults ${summary.faults}, ${summary.requests.total} requests, ${faults.length} faults injected; ${summary.cases} case keys, ${summary.liveCases.submitted} live cases on the on-CPU checks, ${summary.ocrCorrections} OCR corrections.</p>
<table border="1" cellspacing="0" cellpadding="4"><tr><th></th><th>invariant</th><th>count</th><th>detail</th></tr>${rows}</table>
${kindTable}
${killTable}
${chart('Throughput', 'requests/s', [{ label: 'all requests', points: series.map((point) => [point.t, point.rps]) }], faultMarks, durationSeconds)}
${chart('Latency', 'ms', ['p50', 'p95', 'p99'].map((name) => ({ label: name, points: series.map((point) => [point.t, point[name]]) })), faultMarks, durationSeconds)}
${chart('Queue depths', 'rows waiting', ['webhookDeliveries', 'jobs', 'fxDeliveries'].map((name) => ({ label: name, points: queueSamples.map((sample) => [seconds(sample.at), sample[name]]) })), faultMarks, durationSeconds)}
${chart('RSS', 'MB', Object.entries(rssSamples).map(([name, samples]) => ({ label: name, points: samples.map((sample) => [seconds(sample.at), sample.kb / 1024]) })), faultMarks, durationSeconds)}
</body></html>\n`;
  writeFileSync(join(outDir, 'report.html'), html);
}
