import { buildApp, SERVICE_NAME } from './app.js';
import { identityRuntime } from './service-runtime.js';

/** What runService needs to run the identity API: the server's entry point, and benches that run it with a dependency replaced. */
export const identityService = {
  ...identityRuntime,
  name: SERVICE_NAME,
  buildApp,
};
