/** A tiny, strict argument parser: unknown flags are usage errors, never ignored. */
export class UsageError extends Error {}

export interface ParsedArgs {
  command: string | undefined;
  positionals: string[];
  flags: Map<string, string | true>;
}

const valueFlags = new Set(['--root', '--db', '--limit', '--budget', '--kind', '--path', '--symbol', '--key', '--snippet', '--ranking']);
const booleanFlags = new Set(['--json', '--full', '--help', '-h', '--semantic', '--no-git', '--files']);

export function parseArgs(argv: string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--') {
      positionals.push(...argv.slice(index + 1));
      break;
    }
    if (arg.startsWith('-') && arg !== '-') {
      const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
      if (valueFlags.has(name)) {
        const value = inline ?? argv[++index];
        if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
        flags.set(name, value);
      } else if (booleanFlags.has(name) && inline === undefined) {
        flags.set(name, true);
      } else {
        throw new UsageError(`unknown option ${arg}`);
      }
    } else {
      positionals.push(arg);
    }
  }
  return { command: positionals.shift(), positionals, flags };
}

export function positiveInteger(flags: Map<string, string | true>, name: string): number | undefined {
  const value = flags.get(name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new UsageError(`${name} must be a positive whole number`);
  return number;
}
