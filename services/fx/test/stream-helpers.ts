import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { startServiceProcess, type ServiceProcess } from '@svc/service-kit/testing';
import { request } from 'undici';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { ADMIN_TOKEN } from './helpers.js';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));

/** Where fx processes keep their data: one data directory (embedded) or one cloned PostgreSQL database that several instances share. */
export interface FxStore {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export async function createFxStore(): Promise<FxStore> {
  if (process.env.DATABASE_URL) {
    const database: TestDatabase<Record<string, never>> = await createTestDatabase({ schemaName, migrationsFolder });
    await database.database.close();
    return {
      env: { DATABASE_URL: database.url ?? '', SECRETS_KEY: randomBytes(32).toString('hex'), ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, RATE_LIMIT_KEY_PREFIX: `fx-test:${randomBytes(6).toString('hex')}:` } : {}) },
      cleanup: () => database.cleanup(),
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'fx-stream-'));
  return { env: { DATA_DIR: dataDir }, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

/**
 * A real fx process on the store, admin API on. The per-IP limits are raised: every test here
 * calls from 127.0.0.1, and with Redis the counters are shared by all processes of the run.
 */
export function startFx(store: FxStore, env: Record<string, string> = {}): Promise<ServiceProcess> {
  return startServiceProcess({
    cwd: serviceDir,
    entry: 'src/server.ts',
    healthPath: '/api/v1/health',
    timeoutMs: 120_000,
    env: { ...store.env, FX_ADMIN_TOKEN: ADMIN_TOKEN, RATE_LIMIT_ANON_PER_MINUTE: '100000', RATE_LIMIT_ANON_PER_HOUR: '1000000', ...env },
  });
}

export async function postAdmin(baseUrl: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-admin-token': ADMIN_TOKEN }, body: JSON.stringify(body) });
}

export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

/** Parses complete SSE blocks (RFC: fields per line, blocks end with a blank line). */
function parseBlock(block: string): SseEvent {
  const event: SseEvent = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) event.comment = line.slice(1).trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') event.id = value;
    else if (field === 'event') event.event = value;
    else if (field === 'data') event.data = event.data === undefined ? value : `${event.data}\n${value}`;
    else if (field === 'retry') event.retry = Number(value);
  }
  return event;
}

export interface OpenStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Raw body when the answer is not a stream (a problem). */
  body: string;
  events: SseEvent[];
  ended: Promise<void>;
  /** Resolves with the first event (already received or later) matching, or rejects after `timeoutMs`. */
  waitFor(match: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

/** Opens GET path as an SSE client would (undici), collecting events as they arrive. */
export async function openStream(baseUrl: string, path = '/api/v1/rates/stream', headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await request(`${baseUrl}${path}`, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  let body = '';
  let buffer = '';
  let finished = false;
  const ended = (async () => {
    try {
      for await (const chunk of response.body) {
        const text = (chunk as Buffer).toString('utf8');
        if (response.statusCode !== 200) {
          body += text;
          continue;
        }
        buffer += text;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          events.push(parseBlock(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
        for (const waiter of waiters) waiter();
      }
    } catch {
      // aborted or reset: the events so far stay readable
    }
    finished = true;
    for (const waiter of waiters) waiter();
  })();
  if (response.statusCode !== 200) await ended;
  return {
    status: response.statusCode,
    headers: response.headers,
    get body() {
      return body;
    },
    events,
    ended,
    waitFor(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(match);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          } else if (finished) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`stream ended without the event; got ${JSON.stringify(events.map((event) => event.event ?? event.comment ?? event.retry))}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events.map((event) => event.event ?? event.comment ?? event.retry))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => controller.abort(),
  };
}

export const eventData = <T>(event: SseEvent): T => JSON.parse(event.data ?? 'null') as T;
