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
