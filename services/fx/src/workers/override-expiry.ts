import type { FastifyInstance } from 'fastify';
import { announceExpiredOverrides } from '../domain/rates/overrides.js';
import type { RatePollerWiring } from './rate-poller.js';

/** Expiries are looked for this often: an expired override reaches open streams within about this. */
const CHECK_MS = 500;

/**
 * Announces overrides that end by time (expiresUtc) to live streams and alerts. Reads one
 * partial index (overrides with an end not yet announced), so the check costs next to nothing
 * when there are none. Runs once the server listens, like the pollers.
 */
export function startOverrideExpiry(app: FastifyInstance, wiring: Omit<RatePollerWiring, 'config'>): void {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const check = async () => {
    const announced = await announceExpiredOverrides(wiring.db, wiring.clock(), wiring.onRateChanged, (tx, currency) => wiring.live.ratesChanged(tx, { kind: 'OVERRIDE', currencies: [currency] }, wiring.clock()));
    if (announced.length === 0) return;
    app.log.info({ currencies: announced }, 'manual overrides expired');
    await wiring.onIngested();
  };
  const tick = () => {
    running ??= check()
      .catch((error: unknown) => app.log.warn({ err: error }, 'override expiry check failed'))
      .finally(() => {
        running = null;
      });
  };
  app.addHook('onListen', () => {
    timer = setInterval(tick, CHECK_MS);
    timer.unref();
  });
  app.addHook('preClose', async () => {
    if (timer) clearInterval(timer);
    await running;
  });
}
