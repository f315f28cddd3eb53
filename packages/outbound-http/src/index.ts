export { isPublicAddress, nonPublicReason } from './address-policy.js';
export { BlockedTargetError, createGuardedDispatcher, MAX_SENDS_PER_HOST, parseRetryAfter, postOnce, type DeliveryResult } from './guarded-client.js';
export { MAX_TARGET_URL_LENGTH, TargetUrlError, validateTargetUrl, validateTargetUrlField, type TargetPolicy } from './target-url.js';
export { getOnce, type FetchResult } from './guarded-get.js';
