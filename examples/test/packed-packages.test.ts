import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildIdentityWebhookHeaders } from '@svc/webhook-signing';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What a partner installs, and the workspace packages they depend on. */
const PUBLISHED = ['identity-client', 'fx-client', 'capture-embed'];
const WORKSPACE_DEPENDENCIES = ['client-core', 'webhook-signing'];

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args[0]} failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
}

/** The nearest node_modules folder holding `dir` (pnpm keeps a package's dependencies beside it there). */
function nodeModulesOf(dir: string): string {
  let current = dir;
  while (basename(current) !== 'node_modules') current = dirname(current);
  return current;
}

/**
 * The third-party packages the published ones and the example need, packed from the installed
 * copies with npm (offline: the test needs no registry), found by walking their dependencies.
 */
function packThirdParty(into: string): void {
  const seen = new Set<string>();
  const queue = [...[...PUBLISHED, ...WORKSPACE_DEPENDENCIES].map((name) => join(ROOT, 'packages', name)), join(ROOT, 'examples')];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
      if (range.startsWith('workspace:') || seen.has(name)) continue;
      seen.add(name);
      const inWorkspace = !dir.split(sep).includes('node_modules');
      const installed = realpathSync(inWorkspace ? join(dir, 'node_modules', name) : join(nodeModulesOf(dir), name));
      run('npm', ['pack', installed, '--ignore-scripts', '--pack-destination', into, '--silent'], into);
      queue.push(installed);
    }
  }
}

let work = '';
let fx: Server;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'packed-packages-'));
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  // pnpm pack, as a release would: workspace:* becomes the version in the packed manifest.
  for (const name of [...PUBLISHED, ...WORKSPACE_DEPENDENCIES]) run('pnpm', ['pack', '--pack-destination', tarballs], join(ROOT, 'packages', name));
  packThirdParty(tarballs);

  // The partner's project: the example, and the service's samples where the example looks for them (../services/identity/samples).
  const app = join(work, 'partner-app');
  mkdirSync(app);
  mkdirSync(join(work, 'services', 'identity'), { recursive: true });
  symlinkSync(join(ROOT, 'services', 'identity', 'samples'), join(work, 'services', 'identity', 'samples'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module' }));
  const files = readdirSync(tarballs).map((file) => join(tarballs, file));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', ...files], app);
  copyFileSync(join(ROOT, 'examples', 'partner-integration.ts'), join(app, 'partner-integration.ts'));

  fx = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
  await new Promise<void>((resolve) => fx.listen(0, '127.0.0.1', resolve));
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => fx?.close(resolve));
  if (work) rmSync(work, { recursive: true, force: true });
});

it('packs manifests with versions in place of workspace:* and ships each README and its type declarations', () => {
  for (const name of [...PUBLISHED, ...WORKSPACE_DEPENDENCIES]) {
    const installed = join(work, 'partner-app', 'node_modules', '@svc', name);
    const manifest = readFileSync(join(installed, 'package.json'), 'utf8');
    expect(manifest, name).not.toContain('workspace:');
    expect(readdirSync(join(installed, 'dist')), name).toContain('index.d.ts');
    if (PUBLISHED.includes(name)) expect(readFileSync(join(installed, 'README.md'), 'utf8').length, name).toBeGreaterThan(200);
  }
});

it('the partner example and a page using capture-embed compile against the installed packages', () => {
  const app = join(work, 'partner-app');
  writeFileSync(
    join(app, 'page.ts'),
    `import { openCapture, type CaptureEvent } from '@svc/capture-embed';
import { createFxClient } from '@svc/fx-client';
export function verify(url: string, slot: HTMLElement): Promise<string> {
  return new Promise((resolve) => {
    const capture = openCapture({ url, container: slot, onEvent: (event: CaptureEvent) => event.type === 'submitted' && (capture.close(), resolve(event.caseId)) });
  });
}
export const rate = async () => (await createFxClient({ baseUrl: 'https://fx.example' }).latest()).effectiveRates;
`,
  );
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, lib: ['ES2023', 'DOM'], types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')] },
      include: ['*.ts'],
    }),
  );
  // Exits non-zero with the compiler's errors (wrong or missing declarations) in the thrown message.
  run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], app);
});

it('runs from the tarballs: a signed webhook verifies, the fx client reads, capture-embed loads', async () => {
  const secret = 'whsec_packed-packages-test';
  const rawBody = JSON.stringify({ eventType: 'verification.approved', data: { caseId: 'c1' } });
  const headers = buildIdentityWebhookHeaders({ secret, rawBody, eventType: 'verification.approved' });
  const script = `
import { verifyIdentityWebhook } from '@svc/identity-client';
import { createFxClient } from '@svc/fx-client';
import { openCapture, CAPTURE_MESSAGE_SOURCE } from '@svc/capture-embed';
const [headers, rawBody, fxUrl] = JSON.parse(process.argv[2]);
const good = verifyIdentityWebhook({ secret: '${secret}', headers, rawBody });
const tampered = verifyIdentityWebhook({ secret: '${secret}', headers, rawBody: rawBody + ' ' });
const health = await createFxClient({ baseUrl: fxUrl }).health();
console.log(JSON.stringify({ good: good.ok, tampered: tampered.ok, health, embed: typeof openCapture, source: CAPTURE_MESSAGE_SOURCE }));
`;
  const app = join(work, 'partner-app');
  writeFileSync(join(app, 'use.mjs'), script);
  const fxUrl = `http://127.0.0.1:${(fx.address() as AddressInfo).port}`;
  // Not execFileSync: the fx stand-in answers from this process.
  const { stdout: output } = await promisify(execFile)('node', ['use.mjs', JSON.stringify([headers, rawBody, fxUrl])], { cwd: app, encoding: 'utf8' });
  expect(JSON.parse(output)).toEqual({ good: true, tampered: false, health: { status: 'ok' }, embed: 'function', source: 'svc-capture' });
});
