import type { ProjectEngine } from '../core/engine';
import { formatFindSymbol, formatOutline, formatReferences } from '../core/navigation/format';
import { positiveInteger, UsageError, type ParsedArgs } from './args';

export interface NavigationDeps {
  open(): Promise<ProjectEngine>;
  ensureIndexed(engine: ProjectEngine): Promise<void>;
  print(value: string): void;
}

function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** `pk find-symbol`, `pk references` and `pk outline`: the MCP server's navigation tools on the command line. */
export async function runNavigation(
  command: 'find-symbol' | 'references' | 'outline',
  args: ParsedArgs,
  deps: NavigationDeps,
): Promise<number> {
  const json = args.flags.has('--json');
  const subject = args.positionals.join(' ').trim();
  if (command !== 'outline' && !subject) throw new UsageError(`${command} needs a symbol name`);
  if (command === 'outline' && args.positionals.length > 1) throw new UsageError('outline takes at most one PATH');
  if (command !== 'find-symbol' && args.flags.has('--kind')) throw new UsageError(`--kind is for find-symbol only`);
  if (command === 'outline' && args.flags.has('--path')) throw new UsageError('outline takes its path as an argument, not --path');
  if (command !== 'outline' && args.flags.has('--budget')) throw new UsageError('--budget is for outline and context only');
  const engine = await deps.open();
  try {
    await deps.ensureIndexed(engine);
    if (command === 'find-symbol') {
      const result = await engine.findSymbol({
        name: subject,
        kind: stringFlag(args, '--kind'),
        path: stringFlag(args, '--path'),
        limit: positiveInteger(args.flags, '--limit'),
      });
      deps.print(json ? JSON.stringify(result) : formatFindSymbol(result));
      return result.matches.length > 0 ? 0 : 1;
    }
    if (command === 'references') {
      const result = await engine.references({
        symbol: subject,
        path: stringFlag(args, '--path'),
        limit: positiveInteger(args.flags, '--limit'),
      });
      deps.print(json ? JSON.stringify(result) : formatReferences(result));
      return 0;
    }
    const result = await engine.outline({ path: subject || '.', budgetTokens: positiveInteger(args.flags, '--budget') });
    deps.print(json ? JSON.stringify(result) : formatOutline(result));
    return 0;
  } finally {
    await engine.close();
  }
}
