export { ApiError, apiErrorFrom } from './errors.js';
export type { Problem } from './errors.js';
export { throwOnError } from './throw-on-error.js';
