import type { FxConfig } from '../../config.js';
import { isDatabaseEmpty, seedDemoData } from './demo-seed.js';
import type { FxExecutor } from '../../db/executor.js';

export const DEMO_DAYS = 120;

export function demoSeedOptions(config: FxConfig, now: Date, days = DEMO_DAYS) {
  return { now, days, redenominationDate: new Date(`${config.FX_REDENOMINATION_DATE}T00:00:00.000Z`), redenominationFactor: config.FX_REDENOMINATION_FACTOR };
}

/**
 * On the embedded default only, an empty database gets the demo history so a new user
 * sees data at once. Never with DATABASE_URL or FX_SOURCES_FILE: a real deployment must not serve invented rates.
 */
export async function seedEmbeddedFirstStart(db: FxExecutor, config: FxConfig, now: Date): Promise<boolean> {
  if (config.DATABASE_URL) return false;
  // Real upstream sources are configured: their prices must not be mixed with invented history.
  if (config.FX_SOURCES_FILE) return false;
  if (!(await isDatabaseEmpty(db))) return false;
  await db.transaction((tx) => seedDemoData(tx, demoSeedOptions(config, now)));
  return true;
}
