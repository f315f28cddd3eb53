import type { QueueWorker } from './leased-queue.js';

/** A database's LISTEN (@svc/db Database.listen). */
export type Listen = (channel: string, onNotification: (payload: string) => void, onRelisten?: () => void) => Promise<() => Promise<void>>;

/**
 * Wakes a worker on every NOTIFY committed on `channel` (enqueueDeliveries' notifyChannel),
 * so an event reaches a worker in another process within milliseconds instead of at its next
 * poll. Listening starts with the worker and stops with it; if LISTEN fails, polling still
 * delivers everything, only later.
 */
export function wakeOnNotify(worker: QueueWorker, listen: Listen, channel: string, logger?: { warn(object: object, message: string): void }): QueueWorker {
  let unlisten: Promise<(() => Promise<void>) | null> = Promise.resolve(null);
  let listening = false;
  return {
    ...worker,
    start() {
      worker.start();
      if (listening) return;
      listening = true;
      unlisten = listen(channel, () => worker.wake()).catch((error: unknown) => {
        logger?.warn({ err: error, channel }, 'could not LISTEN for new work; the worker falls back to polling');
        return null;
      });
    },
    async stop() {
      const stopListening = await unlisten;
      unlisten = Promise.resolve(null);
      listening = false;
      await stopListening?.().catch(() => undefined);
      await worker.stop();
    },
  };
}
