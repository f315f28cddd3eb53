export { ApiError } from '@svc/client-core';
export type { Problem } from '@svc/client-core';
export { createFxClient } from './client.js';
export type { FxClient, FxClientOptions } from './client.js';
export * from './types.js';
