// The processes of the soak's fleet, each in its own process group (bench/out-of-process.mjs):
// named slots (identity-api-1, identity-worker-2, fx-api-1, …) that can be killed with SIGKILL and
// started again on the same port, a Redis of the soak's own (so restarting it touches nobody else's
// tests) and the helpers (S3, receiver, fronts) that are never faulted. RSS is read from /proc.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectLines, firstJsonLine, freePort, killGroup, root, sleep, spawnTracked, stopChild } from '../bench/out-of-process.mjs';

/** A node helper script of soak/ that prints {"port":…}; resolves with {child, origin}. */
export async function startHelper(label, script, args = []) {
  const child = spawnTracked(process.execPath, [join(root, 'soak', script), ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const { port } = await firstJsonLine(child, label, 30_000);
  child.output = collectLines(child);
  return { child, origin: `http://127.0.0.1:${port}` };
}

/** redis-server on `port` with an append-only file fsynced on every write: counters survive its restart. */
export async function startRedis(port, directory) {
  const child = spawnTracked('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', directory], {
    cwd: directory,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.output = collectLines(child);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.output.tail.some((line) => line.includes('Ready to accept connections'))) return child;
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${child.output.tail.join('\n')}`);
    await sleep(50);
  }
  throw new Error('redis-server did not get ready within 30 s');
}

/**
 * One slot of the fleet: `script` (a service's dist/server.js or dist/worker.js) with `env`; an API
 * keeps its port across restarts (the front knows it), a worker is ready when it logs `readyLine`.
 */
export function fleetSlot({ name, service, kind, script, env, healthPath, readyLine }) {
  const slot = { name, service, kind, child: null, port: null, starts: 0, instances: [], output: null };

  slot.start = async () => {
    slot.port ??= kind === 'api' ? await freePort() : null;
    const childEnv = { ...env, ...(slot.port ? { PORT: String(slot.port) } : {}) };
    const child = spawnTracked(process.execPath, [script], { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    slot.child = child;
    slot.starts += 1;
    const instance = { pid: child.pid, startedAt: Date.now(), endedAt: null, killed: false };
    slot.instances.push(instance);
    child.once('exit', () => (instance.endedAt = Date.now()));
    let ready = false;
    slot.output = collectLines(child, { keep: 40, onLine: (line) => readyLine && line.includes(readyLine) && (ready = true) });
    // An API is up once its health route answers at all: degraded (503) is still serving.
    const answers = async () => {
      if (kind !== 'api') return ready;
      try {
        const response = await fetch(`http://127.0.0.1:${slot.port}${healthPath}`, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        return true;
      } catch {
        return false;
      }
    };
    const deadline = Date.now() + 120_000;
    while (!(await answers())) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited before it was ready:\n${slot.output.tail.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`${name} was not ready within 120 s:\n${slot.output.tail.join('\n')}`);
      await sleep(50);
    }
  };

  /** kill -9 now; resolves once the process is gone. */
  slot.kill = async () => {
    const child = slot.child;
    slot.instances.at(-1).killed = true;
    const exited = new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve)));
    killGroup(child, 'SIGKILL');
    await exited;
  };

  slot.stop = () => (slot.child ? stopChild(slot.child, 15_000) : Promise.resolve());
  slot.origin = () => `http://127.0.0.1:${slot.port}`;
  slot.alive = () => slot.child !== null && slot.child.exitCode === null && slot.child.signalCode === null;
  return slot;
}

/** Resident set size of a process in kB (VmRSS), null when it is gone. */
export function rssKilobytes(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
