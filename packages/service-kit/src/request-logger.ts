import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilent } from 'pino';

type LogLevel = Exclude<LevelWithSilent, 'silent'>;
type ParentLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/**
 * A request's logger, made into a pino child only when the request first logs at an enabled
 * level (or asks for a child). Fastify makes a child per request, with its bindings serialised
 * and redaction set up; at the production level most requests log nothing, so that work was the
 * largest cost of a cached GET after the socket write.
 */
class LazyRequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: ParentLogger,
    private readonly bindings: Bindings,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings));
  }

  private write(level: LogLevel, args: unknown[]): void {
    const target = this.#child ?? (this.parent.isLevelEnabled(level) ? this.real : undefined);
    if (target) Reflect.apply(target[level], target, args);
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  // Methods on the prototype, not arrow fields: nothing is allocated per request but the object.
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    return this.#child ? (this.#child as ParentLogger).isLevelEnabled(level) : this.parent.isLevelEnabled(level);
  }
}

/** Fastify's `childLoggerFactory`: a lazy child, unless the route sets its own level (then an ordinary one). */
export function lazyRequestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (Object.keys(options).length > 0 || typeof (logger as Partial<ParentLogger>).isLevelEnabled !== 'function') return logger.child(bindings, options);
  return new LazyRequestLogger(logger as ParentLogger, bindings);
}
