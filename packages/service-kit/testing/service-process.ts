import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const newestSourceMs = new Map<string, number>();

function newestMtimeMs(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtimeMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * How node runs a service's entry: `src/x.ts` runs as the built `dist/x.js`, as operators run it,
 * when that build is at least as new as every file under `src/` (the test command builds first);
 * otherwise, and for entries outside `src/` (test fixtures), from source through tsx, with the
 * workspace packages' sources too. Compiling the whole service through tsx cost about 3 s of CPU
 * per start, and starts are many: each browser file, CLI call and restart.
 */
function nodeArguments(cwd: string, entry: string): string[] {
  const built = /^src\/(.+)\.ts$/.exec(entry);
  const distEntry = built ? join(cwd, 'dist', `${built[1]}.js`) : '';
  if (distEntry && existsSync(distEntry)) {
    const sourceDirectory = join(cwd, 'src');
    if (!newestSourceMs.has(sourceDirectory)) newestSourceMs.set(sourceDirectory, newestMtimeMs(sourceDirectory));
    if (statSync(distEntry).mtimeMs >= newestSourceMs.get(sourceDirectory)!) return [distEntry];
  }
  return ['--conditions=source', '--import', 'tsx', entry];
}

/** A free loopback port, for starting a real service process in tests. */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  /** Sends the signal and resolves with the exit code once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * Starts the entry (nodeArguments: built, or from source) the way an operator starts the service, and waits
 * until `healthPath` answers (or the process exits, which rejects with its output).
 */
export async function startServiceProcess(options: {
  cwd: string;
  entry: string;
  env: Record<string, string | undefined>;
  healthPath: string;
  timeoutMs?: number;
}): Promise<ServiceProcess> {
  const port = Number(options.env.PORT ?? (await findFreePort()));
  const child = spawn(process.execPath, nodeArguments(options.cwd, options.entry), {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...options.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  // A deadline, not a delay: generous, because a start on a loaded two-core machine can take most of a minute.
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`service exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service not ready in time:\n${output}`);
    }
    try {
      const response = await fetch(`${baseUrl}${options.healthPath}`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    baseUrl,
    exited,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the entry once to completion (for start-up failures), returning its exit code and output. */
export async function runServiceProcessToExit(options: { cwd: string; entry: string; env: Record<string, string | undefined>; timeoutMs?: number }): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, nodeArguments(options.cwd, options.entry), {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}

/**
 * Runs a service's operator CLI (built, or from source as nodeArguments decides), with stdout
 * and stderr apart.
 */
export async function runCliProcess(options: { cwd: string; entry?: string; args: string[]; env: Record<string, string | undefined>; timeoutMs?: number }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...nodeArguments(options.cwd, options.entry ?? 'src/cli.ts'), ...options.args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** A long-running process started from source (a worker), its output kept for failure messages. */
export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the entry (nodeArguments: built, or from source) in `cwd` with only PATH and `env`, as an
 * operator starts a standalone worker; the test kills or stops it (stopWorkerProcess).
 */
export function spawnWorkerProcess(options: { cwd: string; entry: string; env: Record<string, string> }): WorkerProcess {
  const child = spawn(process.execPath, nodeArguments(options.cwd, options.entry), {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exited };
}

export const isWorkerRunning = (worker: WorkerProcess): boolean => worker.child.exitCode === null && worker.child.signalCode === null;

/** Sends the signal and waits for the exit, failing (with the process's output) past timeoutMs. */
export async function stopWorkerProcess(worker: WorkerProcess, signal: NodeJS.Signals, timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (isWorkerRunning(worker)) worker.child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`process did not exit within ${timeoutMs} ms of ${signal}:\n${worker.output()}`)), timeoutMs);
  });
  try {
    return await Promise.race([worker.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
