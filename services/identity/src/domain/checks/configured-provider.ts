import type { QualityHints } from '@svc/checks-local';
import type { IdentityConfig } from '../../config.js';
import type { ChecksProvider } from './checks-provider.js';

/**
 * The live tenants' provider the configuration names, or null for `none` (their cases go to manual review).
 * The on-CPU checks (their image, video and model libraries: about 30 MB of RSS) load only when configured,
 * and the HTTP provider's client too (undici: tens of milliseconds of every start).
 */
export async function configuredChecksProvider(config: IdentityConfig): Promise<(ChecksProvider & { close(): Promise<void>; hints?: QualityHints }) | null> {
  if (config.CHECKS_PROVIDER === 'local') return (await import('./local-provider.js')).createLocalChecksProvider({ ffmpegPath: config.CHECKS_FFMPEG_PATH, timeoutMs: config.CHECKS_TIMEOUT_MS });
  if (config.CHECKS_PROVIDER !== 'http' || !config.CHECKS_OCR_URL || !config.CHECKS_FACE_MATCH_URL || !config.CHECKS_LIVENESS_URL) return null;
  return (await import('./http-provider.js')).createHttpChecksProvider({ ocrUrl: config.CHECKS_OCR_URL, faceMatchUrl: config.CHECKS_FACE_MATCH_URL, livenessUrl: config.CHECKS_LIVENESS_URL, timeoutMs: config.CHECKS_TIMEOUT_MS });
}
