import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createServiceDependencies, type CommonEnvironment, type ServiceDependencies } from './dependencies.js';

/**
 * The operator CLI contract both services share: the command's result as one JSON object
 * on stdout; on error one line on stderr, nothing on stdout, exit code 1. A command that
 * printed something else itself (help) returns undefined.
 */
export async function runCli(name: string, main: (argv: string[]) => Promise<unknown>, argv = process.argv.slice(2)): Promise<void> {
  let result: unknown;
  try {
    result = await main(argv);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    // Field errors add what the message does not already say (CSV lines, rates[i].field).
    const fields = (error as { extensions?: { errors?: { path: string; message: string }[] } }).extensions?.errors?.filter((field) => !detail.includes(field.message));
    const line = `${name}: ${detail}${fields?.length ? ` ${fields.map((field) => `${field.path}: ${field.message}`).join('; ')}` : ''}`;
    process.stderr.write(`${line.replace(/\s*\n\s*/g, ' ')}\n`);
    process.exitCode = 1;
    return;
  }
  if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Thrown for a usage mistake; runCli prints it like any other error. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type CliFlags = Record<string, string | boolean | undefined>;

/** One subcommand of a service CLI: its flags (all checked before anything is opened) and what it does. */
export interface CliCommand<Context> {
  flags: Record<string, 'string' | 'boolean'>;
  required: string[];
  run(context: Context, flags: CliFlags): Promise<unknown>;
}

/**
 * A service's operator CLI: `<command> --flag value…`, `--help` printing `help`. Unknown
 * commands, unknown or missing flags fail before `open` (no database opened, nothing changed);
 * `open` provides what commands run against and is closed afterwards, whatever happens.
 */
export function runCommandCli<Context>(options: {
  name: string;
  help: string;
  commands: Record<string, CliCommand<Context>>;
  open: () => Promise<{ context: Context; close(): Promise<void> }>;
  argv?: string[];
}): Promise<void> {
  return runCli(
    options.name,
    async ([commandName, ...rest]) => {
      if (commandName === undefined || ['--help', '-h', 'help'].includes(commandName)) {
        process.stdout.write(`${options.help}\n`);
        return undefined;
      }
      const command = options.commands[commandName];
      if (!command) throw new UsageError(`unknown command "${commandName}"; commands: ${Object.keys(options.commands).join(', ')} (--help for usage)`);
      let flags: CliFlags;
      try {
        flags = parseArgs({ args: rest, options: Object.fromEntries(Object.entries(command.flags).map(([flag, type]) => [flag, { type }])), strict: true, allowPositionals: false }).values;
      } catch (error) {
        throw new UsageError(`${commandName}: ${(error as Error).message}`);
      }
      for (const flag of command.required) {
        const value = flags[flag];
        if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${commandName}: --${flag} is required`);
      }
      const opened = await options.open();
      try {
        return await command.run(opened.context, flags);
      } finally {
        await opened.close();
      }
    },
    options.argv,
  );
}

/**
 * The operator CLI of a service: its commands run against the service's own dependencies (database,
 * secrets key), opened from its config as runService opens them, only once the flags are checked.
 */
export function runServiceCli<Config extends CommonEnvironment, Schema extends Record<string, unknown>, Context>(options: {
  name: string;
  help: string;
  commands: Record<string, CliCommand<Context>>;
  loadConfig: () => Config;
  schemaName: string;
  migrationsFolder: string;
  schema: Schema;
  /** What the commands receive, from the opened dependencies (closed by the CLI afterwards). */
  context: (dependencies: ServiceDependencies<Schema> & { config: Config }) => Context;
  argv?: string[];
}): Promise<void> {
  const { loadConfig, schemaName, migrationsFolder, schema, context, ...cli } = options;
  return runCommandCli({
    ...cli,
    async open() {
      const config = loadConfig();
      const dependencies = await createServiceDependencies({ config, schemaName, migrationsFolder, schema });
      return { context: context({ ...dependencies, config }), close: () => dependencies.close() };
    },
  });
}

/**
 * A path the user typed, resolved against the directory they ran the command in: pnpm runs
 * `pnpm --filter <pkg> cli …` inside the package's folder and passes the caller's directory as INIT_CWD.
 */
export function resolveUserPath(path: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.INIT_CWD ?? process.cwd(), path);
}
