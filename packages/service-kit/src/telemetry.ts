import { startTelemetry, stopTelemetry, tracingRequested } from '@svc/telemetry';

export interface TelemetryEnvironment {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
}

/**
 * Turns tracing on when the config names an OTLP endpoint; otherwise nothing of the SDK is loaded.
 * Before the dependencies and the app exist: the ioredis patch and the Fastify plugin must be in place first.
 * Resolves with what flushes the spans still buffered at shutdown.
 */
export async function startConfiguredTelemetry(config: TelemetryEnvironment, serviceName: string): Promise<() => Promise<void>> {
  if (!tracingRequested(config)) return () => Promise.resolve();
  await startTelemetry({ serviceName: config.OTEL_SERVICE_NAME ?? serviceName });
  return stopTelemetry;
}
