import type { FastifyBaseLogger } from 'fastify';
import type { FxExecutor } from '../../db/executor.js';
import { pruneStreamEvents, retainedStreamEventIds, STREAM_EVENTS_CHANNEL, streamEventsAfter, type StreamEvent } from './stream-events.js';
import { changeFrame, filterKey, type StreamFilter } from './stream-frames.js';

/** Where a stream's bytes go (an HTTP response in production); the hub never sees sockets. */
export interface StreamSink {
  write(chunk: string | Buffer): void;
  /** Bytes written but not yet taken by the client (our buffer plus the socket's). */
  bufferedBytes(): number;
  /** Ends cleanly after `text`. */
  end(text: string): void;
  /** Drops the connection at once. */
  destroy(): void;
}

export type Listen = (channel: string, onNotification: (payload: string) => void, onRelisten?: () => void) => Promise<() => Promise<void>>;

export interface StreamHubOptions {
  db: FxExecutor;
  listen: Listen;
  clock: () => Date;
  log: FastifyBaseLogger;
  maxBufferBytes: number;
  heartbeatMs: number;
  /** The reconnection delay browsers are told (`retry:`). */
  retryMs: number;
  retentionMs: number;
}

interface Subscriber {
  sink: StreamSink;
  filter: StreamFilter;
  key: string;
  lastSentId: number;
  /** Live events that arrived while the opening frames were being prepared; null once open. */
  pending: StreamEvent[] | null;
  closed: boolean;
}

/** Replays longer than this get a fresh snapshot instead: cheaper for both sides. */
const MAX_REPLAY = 1000;
const PULL_BATCH = 500;
const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/**
 * This instance's open streams. Changes come from the stream_events table, woken by NOTIFY
 * from whichever instance wrote them, and are encoded once per distinct filter per event.
 */
export class StreamHub {
  private readonly subscribers = new Set<Subscriber>();
  private readonly openByOwner = new Map<string, number>();
  private lastDelivered = 0;
  private pulling = false;
  private pullAgain = false;
  private timers: NodeJS.Timeout[] = [];
  private unlisten: (() => Promise<void>) | null = null;
  private closing = false;

  constructor(private readonly options: StreamHubOptions) {}

  async start(): Promise<void> {
    this.lastDelivered = (await retainedStreamEventIds(this.options.db)).newest;
    // A lost LISTEN connection misses notifications: catch up when it is back.
    this.unlisten = await this.options.listen(STREAM_EVENTS_CHANNEL, () => this.pull(), () => this.pull());
    // The heartbeat also pulls, a safety net should a notification ever go missing.
    this.timers.push(setInterval(() => this.heartbeat(), this.options.heartbeatMs), setInterval(() => void this.prune(), 60_000));
    for (const timer of this.timers) timer.unref();
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** Takes one of `owner`'s stream slots; false when all `limit` are held. Give it back with release(). */
  reserve(owner: string, limit: number): boolean {
    const open = this.openByOwner.get(owner) ?? 0;
    if (this.closing || open >= limit) return false;
    this.openByOwner.set(owner, open + 1);
    return true;
  }

  release(owner: string): void {
    const open = (this.openByOwner.get(owner) ?? 1) - 1;
    if (open <= 0) this.openByOwner.delete(owner);
    else this.openByOwner.set(owner, open);
  }

  /**
   * Opens a stream: the changes after `lastEventId` when they are all still kept, else the
   * frames `opening(snapshotId)` builds; then every later change. Live events that arrive
   * meanwhile wait, so none is lost or sent twice around the opening.
   */
  async attach(sink: StreamSink, filter: StreamFilter, lastEventId: string | undefined, opening: (snapshotId: number) => Promise<string>): Promise<() => void> {
    const subscriber: Subscriber = { sink, filter, key: filterKey(filter), lastSentId: 0, pending: [], closed: false };
    this.subscribers.add(subscriber);
    const detach = () => {
      subscriber.closed = true;
      this.subscribers.delete(subscriber);
    };
    const ids = await retainedStreamEventIds(this.options.db);
    const resumeFrom = lastEventId !== undefined && /^\d{1,15}$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : null;
    let replay: StreamEvent[] | null = null;
    if (resumeFrom !== null && resumeFrom >= ids.oldest - 1 && resumeFrom <= ids.newest) {
      replay = await streamEventsAfter(this.options.db, resumeFrom, MAX_REPLAY + 1);
      if (replay.length > MAX_REPLAY) replay = null;
    }
    let text = `retry: ${this.options.retryMs}\n\n`;
    if (replay && resumeFrom !== null) {
      subscriber.lastSentId = resumeFrom;
      for (const event of replay) {
        text += changeFrame(event, filter) ?? '';
        subscriber.lastSentId = event.id;
      }
    } else {
      text += await opening(ids.newest);
      subscriber.lastSentId = ids.newest;
    }
    if (subscriber.closed) return detach;
    const pending = subscriber.pending ?? [];
    subscriber.pending = null;
    this.send(subscriber, text);
    for (const event of pending) this.deliver(subscriber, event, new Map());
    return detach;
  }

  /** Ends every stream with a reconnection hint spread over a few seconds, so clients do not return at once. */
  async close(): Promise<void> {
    this.closing = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.().catch(() => undefined);
    for (const subscriber of this.subscribers) {
      subscriber.closed = true;
      subscriber.sink.end(`retry: ${this.options.retryMs + Math.floor(Math.random() * this.options.retryMs)}\n\n`);
    }
    this.subscribers.clear();
  }

  /** Reads every change after the last one delivered; calls during a pull make it go round once more. */
  private pull(): void {
    if (this.pulling) {
      this.pullAgain = true;
      return;
    }
    this.pulling = true;
    void (async () => {
      try {
        do {
          this.pullAgain = false;
          for (;;) {
            const events = await streamEventsAfter(this.options.db, this.lastDelivered, PULL_BATCH);
            for (const event of events) {
              this.broadcast(event);
              this.lastDelivered = event.id;
            }
            if (events.length < PULL_BATCH) break;
          }
        } while (this.pullAgain && !this.closing);
      } catch (error) {
        this.options.log.warn({ err: error }, 'reading stream events failed; the next notification or heartbeat retries');
      } finally {
        this.pulling = false;
      }
    })();
  }

  private broadcast(event: StreamEvent): void {
    const started = performance.now();
    const frames = new Map<string, Buffer | null>();
    for (const subscriber of this.subscribers) this.deliver(subscriber, event, frames);
    this.options.log.debug({ eventId: event.id, streams: this.subscribers.size, encodings: frames.size, ms: Math.round(performance.now() - started) }, 'change fanned out');
  }

  private deliver(subscriber: Subscriber, event: StreamEvent, frames: Map<string, Buffer | null>): void {
    if (subscriber.pending) {
      subscriber.pending.push(event);
      return;
    }
    if (event.id <= subscriber.lastSentId) return;
    let frame = frames.get(subscriber.key);
    if (frame === undefined) {
      // Encoded once per filter: 10,000 streams write the same bytes, not 10,000 string encodings.
      const text = changeFrame(event, subscriber.filter);
      frame = text === null ? null : Buffer.from(text, 'utf8');
      frames.set(subscriber.key, frame);
    }
    subscriber.lastSentId = event.id;
    if (frame !== null) this.send(subscriber, frame);
  }

  /** Writes, then drops a client whose unsent bytes pass the limit: it is gone or cannot keep up. */
  private send(subscriber: Subscriber, chunk: string | Buffer): void {
    if (subscriber.closed) return;
    subscriber.sink.write(chunk);
    if (subscriber.sink.bufferedBytes() > this.options.maxBufferBytes) {
      this.options.log.warn({ bufferedBytes: subscriber.sink.bufferedBytes() }, 'dropping a stream that does not read its events');
      subscriber.closed = true;
      this.subscribers.delete(subscriber);
      subscriber.sink.destroy();
    }
  }

  private heartbeat(): void {
    this.pull();
    for (const subscriber of this.subscribers) if (!subscriber.pending) this.send(subscriber, HEARTBEAT);
  }

  private async prune(): Promise<void> {
    try {
      await pruneStreamEvents(this.options.db, new Date(this.options.clock().getTime() - this.options.retentionMs));
    } catch (error) {
      this.options.log.warn({ err: error }, 'pruning stream events failed');
    }
  }
}
