import type { RateLimitWindow } from '@svc/rate-limit';
import type { FxConfig } from '../../config.js';

export interface PlanLimits {
  name: 'Free' | 'Starter' | 'Professional' | 'Enterprise';
  /** null = unlimited. */
  monthlyQuota: number | null;
  perMinute: number;
  webhookAllowance: number;
  /** Live streams (GET /rates/stream) the key may hold open at once. */
  maxStreams: number;
}

/**
 * The one copy of fx's limit numbers: the limiter builds its windows from it and
 * GET /pricing serves it, so the published numbers cannot drift from the enforced ones.
 * Anonymous callers are limited per IP; keyed callers by their plan's windows and monthly quota.
 */
export interface LimitsConfiguration {
  anonymous: { perMinute: number; perHour: number };
  plans: PlanLimits[];
}

export function limitsConfiguration(config: Pick<FxConfig, 'RATE_LIMIT_ANON_PER_MINUTE' | 'RATE_LIMIT_ANON_PER_HOUR'>): LimitsConfiguration {
  return {
    anonymous: { perMinute: config.RATE_LIMIT_ANON_PER_MINUTE, perHour: config.RATE_LIMIT_ANON_PER_HOUR },
    plans: [
      { name: 'Free', monthlyQuota: 300, perMinute: 60, webhookAllowance: 1, maxStreams: 2 },
      { name: 'Starter', monthlyQuota: 10_000, perMinute: 60, webhookAllowance: 5, maxStreams: 5 },
      { name: 'Professional', monthlyQuota: 500_000, perMinute: 60, webhookAllowance: 25, maxStreams: 25 },
      { name: 'Enterprise', monthlyQuota: null, perMinute: 60, webhookAllowance: 100, maxStreams: 100 },
    ],
  };
}

/** Windows of the anonymous per-IP policy, named as they appear in RateLimit-Policy. */
export function anonymousWindows(limits: LimitsConfiguration): RateLimitWindow[] {
  return [
    { name: 'minute', limit: limits.anonymous.perMinute, windowMs: 60_000 },
    { name: 'hour', limit: limits.anonymous.perHour, windowMs: 3_600_000 },
  ];
}

/**
 * Windows of a keyed plan: per key per minute, plus the monthly quota as a calendar-month
 * window (reset at the first instant of the next UTC month); unlimited plans have none.
 */
export function planWindows(plan: PlanLimits): RateLimitWindow[] {
  const windows: RateLimitWindow[] = [{ name: 'minute', limit: plan.perMinute, windowMs: 60_000 }];
  if (plan.monthlyQuota !== null) windows.push({ name: 'month', limit: plan.monthlyQuota, windowMs: 0, calendar: 'utc-month' });
  return windows;
}
