import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL server of one test file's own, from the machine's server binaries, that the test
 * stops and starts again: what a database restart does to a running service, without touching the
 * server every other test shares. `url` names its `postgres` database (trust auth, loopback only).
 */
export interface PrivatePostgres {
  url: string;
  /** A fast shutdown (`pg_ctl stop -m fast`): sessions are cut, new connections refused until start(). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
}

const SERVER_ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin directory (Debian's layout), or null. */
function serverBinaries(): string | null {
  if (!existsSync(SERVER_ROOT)) return null;
  const [newest] = readdirSync(SERVER_ROOT)
    .filter((version) => existsSync(join(SERVER_ROOT, version, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return newest ? join(SERVER_ROOT, newest, 'bin') : null;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** `settings`: server settings given as `-c name=value` (max_connections for a fleet, say). */
export async function startPrivatePostgres(options: { settings?: Record<string, string> } = {}): Promise<PrivatePostgres> {
  const bin = serverBinaries();
  if (!bin) throw new Error(`no PostgreSQL server binaries under ${SERVER_ROOT}: apt-get install -y postgresql`);
  const directory = mkdtempSync(join(tmpdir(), 'private-postgres-'));
  const data = join(directory, 'data');
  // PostgreSQL refuses to run as root: as root, its files and processes belong to the postgres user.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('running as root, and there is no postgres user to run PostgreSQL as');
    chownSync(directory, uid, gid);
  }
  const command = (program: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args]);
  const runToEnd = (program: string, args: string[]) => {
    const [file, argv] = command(program, args);
    const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 120_000 });
    if (result.status !== 0) throw new Error(`${program} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
  };
  runToEnd('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  let server: ChildProcess | null = null;

  async function start(): Promise<void> {
    const [file, argv] = command('postgres', ['-D', data, '-p', String(port), '-k', directory, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', ...settings]);
    const child = spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    server = child;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`postgres exited (${code}): ${log}`)));
      child.stderr?.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('ready to accept connections')) resolve();
      });
    });
    child.removeAllListeners('exit');
    // Its log is not read after start, but an unread pipe would fill and block the server.
    child.stderr?.resume();
  }

  async function stop(): Promise<void> {
    const child = server;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    runToEnd('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
    await exited;
    server = null;
  }

  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
