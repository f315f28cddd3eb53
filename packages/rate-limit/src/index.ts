export { FallbackCounterStore, MemoryCounterStore, RedisCounterStore, type CounterIncrement, type CounterStore } from './counter-store.js';
export { draftRateLimitHeaders, legacyRateLimitHeaders } from './headers.js';
export { createRateLimiter, type RateLimitDecision, type RateLimiter, type RateLimiterOptions, type RateLimitWindow, type WindowState } from './rate-limiter.js';
export { rateLimitPlugin, type RateLimitOutcome, type RateLimitPluginOptions, type RateLimitTarget } from './rate-limit-plugin.js';
