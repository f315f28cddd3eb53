export { CORRELATION_ID_HEADER, correlationIdFromRequest, correlationIdPlugin } from './correlation-id.js';
export {
  checkDependencies,
  createServiceDependencies,
  type CommonEnvironment,
  type DependencyHealth,
  type DependencyStatus,
  type ServiceAppDependencies,
  type ServiceDependencies,
} from './dependencies.js';
export {
  baseServiceEnvironment,
  ConfigError,
  databaseUrlVariable,
  decodeSecretsKey,
  logLevelVariable,
  optionalString,
  parseEnvironment,
  portVariable,
  redisUrlVariable,
  requireSecretsKeyWithDatabase,
  retryScheduleVariable,
  deliveryQueueVariables,
  metricsVariables,
  secretsKeyVariable,
  telemetryVariables,
} from './environment.js';
export { emptyAsUndefined } from './blank-values.js';
export { healthResponseSchema, healthRoute, type HealthExtension, type HealthResponse, type HealthRouteOptions } from './health.js';
export { createBaseApp, type BaseAppOptions, type ServiceApp } from './base-app.js';
export { serverOptions } from './logging.js';
export { PROPRIETARY_LICENSE, registerOpenApi, registerOpenApiDocument, withoutUnusedSchemas, type MutualTlsSecurityScheme, type OpenApiDocumentOptions, type ScopedOpenApiDocumentOptions } from './openapi.js';
export { connectRedis, pingRedis, redactUrl } from './redis.js';
export { runService, type RunServiceOptions } from './run-service.js';
export { runWorker, type BackgroundWorker, type RunWorkerOptions } from './run-worker.js';
export { createSecretBox, GENERATED_KEY_FILE, loadSecretsKey, type SecretBox } from './secrets.js';
export { rotateSecretBodySchema, ROTATE_SECRET_DESCRIPTION, signingSecretSchema } from './secret-rotation.js';
export { resolveUserPath, runCli, runCommandCli, runServiceCli, UsageError, type CliCommand, type CliFlags } from './cli.js';
export { createAddressMatcher, LOOPBACK_PROXIES, trustedProxiesVariable } from './trusted-proxies.js';
export { CountBatcher } from './count-batcher.js';
export { LastUsedBatcher } from './last-used.js';
export { routeConfig, routePattern, routingPath } from './request-path.js';
export { createServiceMetrics, registerHttpMetrics, UNMATCHED_ROUTE, type LimiterStoreState, type QueueDepthRow, type ServiceMetrics, type ServiceMetricsOptions } from './metrics.js';
export { startMetricsServer, type MetricsServer } from './metrics-server.js';
export { builtWebAppPlugin, webAppPlugin, type WebAppOptions } from './web-app.js';
export { bodyAbortSignal, DEFAULT_LISTENER_TIMEOUTS, listenerTimeoutsOf, listenerVariables, requireHeadersWithinRequestTimeout, type ListenerTimeouts } from './listener-guards.js';
