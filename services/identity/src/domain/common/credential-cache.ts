import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { IdentityExecutor } from '../../db/schema.js';

/** Every instance LISTENs here: a revocation's NOTIFY empties all their caches. */
export const CREDENTIALS_CHANNEL = 'identity_credentials';

/**
 * Announces, in the revoking transaction, that credentials changed (a token, client, session or
 * tenant was revoked, ended or disabled). PostgreSQL delivers it to every instance on commit.
 */
export async function announceCredentialsChanged(tx: IdentityExecutor): Promise<void> {
  // A fresh nonce per announcement: every instance acknowledges it by name.
  await tx.execute(sql`select pg_notify(${CREDENTIALS_CHANNEL}, 'changed:' || gen_random_uuid())`);
}

export interface CredentialCacheOptions {
  listen: (channel: string, onNotification: (payload: string) => void, onRelisten?: () => void) => Promise<() => Promise<void>>;
  /** Sends a NOTIFY on the channel (the heartbeat). */
  notify: (payload: string) => Promise<void>;
  /** How long a looked-up credential is reused (default 60 s); expiry is still checked on each request. */
  ttlMs?: number;
  maxEntries?: number;
  /** How often the cache proves its channel works (default 2 s). */
  heartbeatMs?: number;
  now?: () => number;
  logger?: { warn(object: object, message: string): void };
}

export interface CredentialCache {
  /** The remembered look-up, or undefined (also whenever the cache is off). */
  get<Value>(key: string): Value | undefined;
  /** A look-up's result, if no change was announced since `generation` (taken before the look-up). */
  set(key: string, value: unknown, generation: number): void;
  /** Changes every time the cache is emptied. */
  readonly generation: number;
  /** Empties it here at once (the revoking instance, after its commit). */
  clear(): void;
  /** True while the channel is proven (its heartbeat came back recently): only then does get() answer. */
  readonly active: boolean;
  /** How many change announcements this instance has received. */
  readonly changesSeen: number;
  /**
   * Resolves once the next announcement after `seen` was received here and acknowledged by every
   * instance heard from recently (at most `timeoutMs`): the revoking instance answers only when
   * every live instance has emptied its cache, so the partner's next request anywhere finds the
   * credential gone. An instance that does not acknowledge in time is one whose channel is failing,
   * and its own heartbeat turns its cache off.
   */
  announcementSeen(seen: number, timeoutMs?: number): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Verified tokens and portal sessions, by hash, for a short while: the authenticated hot path
 * without a database round trip. Revocations stay immediate on every instance: the revoking
 * transaction NOTIFYs and every instance empties its cache when that commits. It fails safe: the
 * cache answers only while its own heartbeat NOTIFY has come back recently, so an instance whose
 * LISTEN connection is down (notifications lost) looks everything up again until it is back, and
 * it empties the cache whenever the LISTEN is re-established (announcements may have been missed
 * in a gap shorter than the heartbeat's).
 */
export function createCredentialCache(options: CredentialCacheOptions): CredentialCache {
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const heartbeatMs = options.heartbeatMs ?? 2_000;
  const now = options.now ?? Date.now;
  const instanceId = randomUUID();
  const ping = `ping:${instanceId}`;
  /** Instances heard from (their heartbeats), by id: the ones a revocation waits for. */
  const peers = new Map<string, number>();
  /** Acknowledgements by announcement nonce (the last few). */
  const acks = new Map<string, Set<string>>();
  let ackWaiters: Array<{ nonce: string; check: () => void }> = [];
  const recentChanges: string[] = [];
  const entries = new Map<string, { value: unknown; until: number }>();
  let generation = 0;
  let lastHeartbeat: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | null = null;
  let changesSeen = 0;
  let waiters: Array<{ seen: number; resolve: (nonce: string) => void }> = [];

  const healthy = () => lastHeartbeat !== null && now() - lastHeartbeat < heartbeatMs * 2.5;

  function clear(): void {
    generation += 1;
    entries.clear();
  }

  const livePeers = () => [...peers].filter(([, seenAt]) => now() - seenAt < heartbeatMs * 2.5).map(([id]) => id);

  function onNotification(payload: string): void {
    if (payload.startsWith('ping:')) {
      peers.set(payload.slice(5), now());
      if (payload !== ping) return;
      // Back after a gap: whatever was announced meanwhile was missed, so start empty.
      if (!healthy()) clear();
      lastHeartbeat = now();
    } else if (payload.startsWith('ack:')) {
      const [, from = '', nonce = ''] = payload.split(':');
      acks.get(nonce)?.add(from);
      for (const waiter of ackWaiters.filter((candidate) => candidate.nonce === nonce)) waiter.check();
    } else {
      clear();
      changesSeen += 1;
      const nonce = payload.startsWith('changed:') ? payload.slice(8) : payload;
      acks.set(nonce, acks.get(nonce) ?? new Set());
      recentChanges.push(nonce);
      if (recentChanges.length > 100) acks.delete(recentChanges.shift()!);
      // Tell the revoking instance this one has forgotten everything.
      options.notify(`ack:${instanceId}:${nonce}`).catch(() => undefined);
      const ready = waiters.filter((waiter) => changesSeen > waiter.seen);
      waiters = waiters.filter((waiter) => changesSeen <= waiter.seen);
      for (const waiter of ready) waiter.resolve(nonce);
    }
  }

  /** Until every instance heard from recently has acknowledged `nonce`, or the deadline. */
  function acknowledgedByAll(nonce: string, deadline: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiter = {
        nonce,
        check: () => {
          const acked = acks.get(nonce) ?? new Set<string>();
          if (livePeers().every((id) => acked.has(id)) || now() >= deadline) finish();
        },
      };
      const timer = setTimeout(() => finish(), Math.max(0, deadline - now()));
      timer.unref();
      function finish() {
        clearTimeout(timer);
        ackWaiters = ackWaiters.filter((candidate) => candidate !== waiter);
        resolve();
      }
      ackWaiters.push(waiter);
      waiter.check();
    });
  }

  function beat(): void {
    options.notify(ping).catch((error: unknown) => options.logger?.warn({ err: error }, 'credential cache heartbeat failed; the cache is off until it succeeds'));
  }

  return {
    get<Value>(key: string): Value | undefined {
      if (!healthy()) return undefined;
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.until <= now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value as Value;
    },
    set(key, value, since) {
      if (since !== generation || !healthy()) return;
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, until: now() + ttlMs });
    },
    get generation() {
      return generation;
    },
    clear,
    get active() {
      return healthy();
    },
    get changesSeen() {
      return changesSeen;
    },
    async announcementSeen(seen, timeoutMs = 1000) {
      if (unlisten === null) return;
      const deadline = now() + timeoutMs;
      // The first announcement after `seen` is this request's own (or one just as recent).
      const nonce =
        changesSeen > seen
          ? recentChanges.at(-1)
          : await new Promise<string | undefined>((resolve) => {
              const timer = setTimeout(() => resolve(undefined), timeoutMs);
              timer.unref();
              waiters.push({ seen, resolve: (received) => (clearTimeout(timer), resolve(received)) });
            });
      if (nonce !== undefined) await acknowledgedByAll(nonce, deadline);
    },
    async start() {
      try {
        // A re-established LISTEN may have missed announcements: start empty.
        unlisten = await options.listen(CREDENTIALS_CHANNEL, onNotification, clear);
      } catch (error) {
        options.logger?.warn({ err: error }, 'could not LISTEN for credential changes; every request looks its credential up');
        return;
      }
      beat();
      timer = setInterval(beat, heartbeatMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      lastHeartbeat = null;
      clear();
      await unlisten?.().catch(() => undefined);
      unlisten = null;
    },
  };
}

/**
 * Runs a change that ends or alters credentials, then empties this instance's cache at once and
 * waits until every live instance has emptied its own: the next request anywhere sees the change.
 */
export async function withCredentialsForgotten<Result>(cache: CredentialCache, change: () => Promise<Result>): Promise<Result> {
  const seen = cache.changesSeen;
  const result = await change();
  cache.clear();
  await cache.announcementSeen(seen);
  return result;
}
