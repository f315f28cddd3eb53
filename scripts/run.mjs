#!/usr/bin/env node
// The two README commands, `npm start` and `npm test`, must work on a machine with only
// Node and npm. This script uses nothing but Node built-ins: it installs pnpm when it is
// missing, installs the workspace when node_modules is missing or older than the
// lockfile, then builds and starts both services, or runs every package's tests.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const command = process.argv[2];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 18)) {
  console.error(`Node ${process.versions.node} is too old: partner-services needs Node >= 20.18.`);
  process.exit(1);
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function hasPnpm() {
  return spawnSync('pnpm', ['--version'], { cwd: root, stdio: 'ignore' }).status === 0;
}

function ensurePnpm() {
  if (hasPnpm()) return;
  console.log('pnpm not found: installing pnpm@10 with npm');
  if (run('npm', ['install', '--global', 'pnpm@10']) !== 0 || !hasPnpm()) {
    console.error('Could not install pnpm globally. Install it yourself (npm i -g pnpm@10) and try again.');
    process.exit(1);
  }
}

function ensureDependencies() {
  const marker = join(root, 'node_modules', '.modules.yaml');
  const lockfile = join(root, 'pnpm-lock.yaml');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lockfile).mtimeMs) return;
  console.log('Installing dependencies (pnpm install --frozen-lockfile)');
  if (run('pnpm', ['install', '--frozen-lockfile']) !== 0) process.exit(1);
}

// Debian packages the features need: the browser tests drive chromium (browser downloads are
// impossible here), identity's local liveness check reads video frames with ffmpeg, and the
// checks tests print synthetic passports in OCR-B. As root they are installed with apt-get;
// otherwise the run stops and names the command, never skips silently.
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SYSTEM_PACKAGES = {
  chromium: { present: () => existsSync(chromiumPath), why: 'the fx page and identity portal browser tests drive it' },
  ffmpeg: { present: () => spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' }).status === 0, why: "identity's local liveness check reads the video's frames with it" },
  'fonts-ocr-b': { present: () => existsSync('/usr/share/fonts/opentype/ocr-b/OCRB.otf'), why: 'the checks tests print synthetic passports in the MRZ font' },
  'tesseract-ocr-ara': { present: () => existsSync('/usr/share/tesseract-ocr/5/tessdata/ara.traineddata'), why: 'the Arabic reader of Syrian documents loads its Arabic model from there' },
  'tesseract-ocr-script-arab': { present: () => existsSync('/usr/share/tesseract-ocr/5/tessdata/Arabic.traineddata'), why: 'the Arabic reader of Syrian documents loads its Arabic-script model from there' },
  'tesseract-ocr-eng': { present: () => existsSync('/usr/share/tesseract-ocr/5/tessdata/eng.traineddata'), why: 'the Arabic reader of Syrian documents reads Western digits with its English model from there' },
  'fonts-hosny-amiri': { present: () => existsSync('/usr/share/fonts/opentype/fonts-hosny-amiri/Amiri-Bold.ttf'), why: 'synthetic Syrian cards are printed in Amiri among other Arabic fonts' },
  'fonts-kacst-one': { present: () => existsSync('/usr/share/fonts/truetype/kacst-one/KacstOne-Bold.ttf'), why: 'synthetic Syrian cards are printed in KacstOne among other Arabic fonts' },
  'fonts-noto-core': { present: () => existsSync('/usr/share/fonts/truetype/noto/NotoNaskhArabic-Bold.ttf'), why: 'synthetic Syrian cards are printed in Noto Naskh and Noto Sans Arabic among other Arabic fonts' },
  'fonts-arabeyes': { present: () => existsSync('/usr/share/fonts/truetype/fonts-arabeyes/ae_AlArabiya.ttf'), why: 'synthetic Syrian cards are printed in AlArabiya among other Arabic fonts' },
  'python-matplotlib-data': { present: () => existsSync('/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg'), why: "the liveness tests replay its public-domain portrait of Grace Hopper as another person's photo" },
};

function ensureSystemPackages(names) {
  const missing = names.filter((name) => !SYSTEM_PACKAGES[name].present());
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0) {
    for (const name of missing) console.log(`${name} not found: installing Debian's ${name} with apt-get (${SYSTEM_PACKAGES[name].why})`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (run('apt-get', ['update', '-qq'], { env }) === 0 && run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env }) === 0 && missing.every((name) => SYSTEM_PACKAGES[name].present())) return;
  }
  for (const name of missing) console.error(`${name} is missing: ${SYSTEM_PACKAGES[name].why}.`);
  console.error(`Install as root with: apt-get install -y ${missing.join(' ')}`);
  process.exit(1);
}

ensurePnpm();
ensureDependencies();

if (command === 'test') {
  // With DATABASE_URL the browser tests skip themselves (they run on the embedded default).
  const arabic = ['tesseract-ocr-ara', 'tesseract-ocr-script-arab', 'tesseract-ocr-eng', 'fonts-hosny-amiri', 'fonts-kacst-one', 'fonts-noto-core', 'fonts-arabeyes'];
  ensureSystemPackages(process.env.DATABASE_URL ? ['ffmpeg', 'fonts-ocr-b', 'python-matplotlib-data', ...arabic] : ['chromium', 'ffmpeg', 'fonts-ocr-b', 'python-matplotlib-data', ...arabic]);
  // turbo builds the shared packages first (test dependsOn ^build), then runs each package's vitest.
  const reportDir = mkdtempSync(join(tmpdir(), 'svc-test-reports-'));
  const status = run('pnpm', ['exec', 'turbo', 'run', 'test', '--concurrency=1', ...process.argv.slice(3)], {
    env: { ...process.env, TEST_REPORT_DIR: reportDir },
  });
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const file of readdirSync(reportDir)) {
    const report = JSON.parse(readFileSync(join(reportDir, file), 'utf8'));
    totals.passed += report.numPassedTests;
    totals.failed += report.numFailedTests;
    totals.skipped += report.numPendingTests + report.numTodoTests;
  }
  rmSync(reportDir, { recursive: true, force: true });
  console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exit(status !== 0 ? status : totals.passed === 0 ? 1 : 0);
}

if (command === 'start') {
  // identity decides live cases with the on-CPU checks unless told otherwise (CHECKS_PROVIDER).
  const checksProvider = process.env.CHECKS_PROVIDER || (process.env.DATABASE_URL ? 'none' : 'local');
  if (checksProvider === 'local') ensureSystemPackages(['ffmpeg']);
  if (run('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@svc/identity', '--filter=@svc/fx', '--output-logs=errors-only']) !== 0) process.exit(1);
  // Each service in its own process group: a terminal's Ctrl-C reaches only this runner, which
  // forwards one signal. A service signalled twice (by the terminal and by us) would skip its
  // graceful shutdown.
  // One METRICS_PORT for the pair would make the second listener fail: identity gets the port
  // given, fx the next one (like their public ports, 3001 and 3002).
  const metricsPort = Number(process.env.METRICS_PORT);
  const metricsPorts = process.env.METRICS_PORT && Number.isInteger(metricsPort) ? { identity: String(metricsPort), fx: String(metricsPort + 1) } : null;
  if (metricsPorts) console.log(`metrics: identity on :${metricsPorts.identity}, fx on :${metricsPorts.fx} (GET /metrics)`);
  const services = ['identity', 'fx'].map((name) =>
    spawn(process.execPath, ['dist/server.js'], {
      cwd: join(root, 'services', name),
      stdio: 'inherit',
      env: metricsPorts ? { ...process.env, METRICS_PORT: metricsPorts[name] } : process.env,
      detached: true,
    }),
  );
  let exiting = false;
  const stopAll = (signal) => {
    exiting = true;
    for (const child of services) if (child.exitCode === null) child.kill(signal);
  };
  process.on('SIGINT', () => stopAll('SIGINT'));
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  let remaining = services.length;
  let worst = 0;
  for (const child of services) {
    child.on('exit', (code, signal) => {
      worst = Math.max(worst, code ?? (signal ? 0 : 1));
      remaining -= 1;
      // One service failing to start stops the other: a half-running stack only confuses.
      if (!exiting && code !== 0) stopAll('SIGTERM');
      if (remaining === 0) process.exit(worst);
    });
  }
} else if (command !== 'test') {
  console.error('usage: node scripts/run.mjs start|test');
  process.exit(2);
}
