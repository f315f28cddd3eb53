import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RawReplyDefaultExpression, type RawRequestDefaultExpression, type RawServerDefault } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { problemJsonPlugin, type ProblemJsonPluginOptions } from '../src/index.js';

export type TestApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

export interface LogLine {
  level: number;
  msg: string;
  correlationId?: string;
  errorKind?: string;
  problem?: { status: number; code: string; detail?: string };
  err?: { type: string; message: string; stack: string };
  [field: string]: unknown;
}

export const PINO_INFO = 30;
export const PINO_ERROR = 50;

/**
 * A Fastify app wired like the services: zod type provider, the request id taken from
 * X-Correlation-ID and logged as `correlationId`, and pino writing into `logLines`.
 */
export async function buildTestApp(
  registerRoutes: (app: TestApp) => void,
  options: { plugin?: ProblemJsonPluginOptions; bodyLimit?: number } = {},
): Promise<{ app: TestApp; logLines: LogLine[] }> {
  const logLines: LogLine[] = [];
  const app = Fastify({
    logger: { level: 'info', stream: { write: (line: string) => void logLines.push(JSON.parse(line) as LogLine) } },
    genReqId: (request) => {
      const supplied = request.headers['x-correlation-id'];
      return typeof supplied === 'string' ? supplied : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: 'correlationId' }),
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(problemJsonPlugin, options.plugin ?? {});
  registerRoutes(app);
  await app.ready();
  return { app, logLines };
}

/** The log lines our plugin wrote (Fastify's own request lines have no `errorKind`). */
export function problemLogLines(logLines: readonly LogLine[]): LogLine[] {
  return logLines.filter((line) => line.errorKind !== undefined);
}
