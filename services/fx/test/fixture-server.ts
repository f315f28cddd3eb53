import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const fixture = (name: string) => readFileSync(new URL(`./fixtures/sources/${name}`, import.meta.url), 'utf8');

export interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** A loopback upstream answering each path as told; counts hits and keeps the last request's headers. */
export async function startFixtureServer(initial: Record<string, Answer> = {}) {
  const answers = new Map(Object.entries(initial));
  const hits = new Map<string, number>();
  const times = new Map<string, number[]>();
  const lastHeaders = new Map<string, Record<string, string | string[] | undefined>>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://fixture').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    times.set(path, [...(times.get(path) ?? []), Date.now()]);
    lastHeaders.set(path, request.headers);
    const answer = answers.get(path) ?? { status: 404, body: 'not found' };
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    answer(path: string, value: Answer) {
      answers.set(path, value);
    },
    hits: (path: string) => hits.get(path) ?? 0,
    /** When each request for `path` arrived (ms since the epoch), oldest first. */
    times: (path: string) => times.get(path) ?? [],
    headers: (path: string) => lastHeaders.get(path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type FixtureServer = Awaited<ReturnType<typeof startFixtureServer>>;
