import { parseArgs } from 'node:util';

export class UsageError extends Error {}

export type Flags = Record<string, string | boolean | undefined>;

/** `--name value` flags for one command; every flag is declared so typos are refused. */
export function parseFlags(argv: string[], strings: string[], booleans: string[] = []): Flags {
  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } };
  for (const name of strings) options[name] = { type: 'string' };
  for (const name of booleans) options[name] = { type: 'boolean' };
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false })
      .values as Flags;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function requireFlag(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

/** A command that ran and found the answer is "no" (exit 1 with its message, no stack). */
export class CommandFailed extends Error {}
