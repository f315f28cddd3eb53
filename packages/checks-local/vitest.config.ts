import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedVitestConfig } from '../../vitest.shared.js';

/**
 * Every test process of this package starts with the network guard preloaded (it also reaches the
 * worker threads tesseract.js and human run in): the on-CPU checks must never download anything,
 * and a test that passes only because the machine is online would hide exactly that.
 */
const networkDeny = fileURLToPath(new URL('./test/network-deny.mjs', import.meta.url));

export default mergeConfig(
  sharedVitestConfig('@svc/checks-local'),
  defineConfig({ test: { poolOptions: { forks: { execArgv: ['--import', networkDeny] } } } }),
);
