import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

describe('tracing off', () => {
  it('loads nothing of OpenTelemetry: the facade is all a service imports until startTelemetry is called', async () => {
    const script = fileURLToPath(new URL('./fixtures/import-only.mjs', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: fileURLToPath(new URL('..', import.meta.url)) });
    const report = JSON.parse(stdout) as { traceparent: unknown; active: unknown; loaded: string[] };
    expect(report).toMatchObject({ traceparent: null, active: null });
    expect(report.loaded.some((url) => url.includes('/telemetry/dist/index.js'))).toBe(true);
    expect(report.loaded.filter((url) => /@opentelemetry|@fastify\+otel|@fastify\/otel/.test(url))).toEqual([]);
  });
});
