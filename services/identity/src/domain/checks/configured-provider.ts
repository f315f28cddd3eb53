import type { QualityHints } from '@svc/checks-local';
import type { ChecksProvider } from './checks-provider.js';

/** The settings the provider is chosen by: a slice of the parsed config, so the domain never imports config.ts. */
export interface ChecksProviderSettings {
  CHECKS_PROVIDER: 'none' | 'http' | 'local';
  CHECKS_FFMPEG_PATH: string;
  CHECKS_TIMEOUT_MS: number;
  CHECKS_OCR_URL?: string | undefined;
  CHECKS_FACE_MATCH_URL?: string | undefined;
  CHECKS_LIVENESS_URL?: string | undefined;
}

/**
 * The live tenants' provider the configuration names, or null for `none` (their cases go to manual review).
 * The on-CPU checks (their image, video and model libraries: about 30 MB of RSS) load only when configured,
 * and the HTTP provider's client too (undici: tens of milliseconds of every start).
 */
export async function configuredChecksProvider(config: ChecksProviderSettings): Promise<(ChecksProvider & { close(): Promise<void>; warm?(): Promise<void>; hints?: QualityHints }) | null> {
  if (config.CHECKS_PROVIDER === 'local') return (await import('./local-provider.js')).createLocalChecksProvider({ ffmpegPath: config.CHECKS_FFMPEG_PATH, timeoutMs: config.CHECKS_TIMEOUT_MS });
  if (config.CHECKS_PROVIDER !== 'http' || !config.CHECKS_OCR_URL || !config.CHECKS_FACE_MATCH_URL || !config.CHECKS_LIVENESS_URL) return null;
  return (await import('./http-provider.js')).createHttpChecksProvider({ ocrUrl: config.CHECKS_OCR_URL, faceMatchUrl: config.CHECKS_FACE_MATCH_URL, livenessUrl: config.CHECKS_LIVENESS_URL, timeoutMs: config.CHECKS_TIMEOUT_MS });
}
