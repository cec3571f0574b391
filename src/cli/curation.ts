import type { ProjectEngine } from '../core/engine';
import type { ListedPin } from '../core/curation/requests';
import { rankingModes } from '../core/curation/requests';
import type { RankingMode } from '../core/curation/ranker';
import type { MemoryRow } from '../core/curation/tables';
import type { PinTarget } from '../core/curation/log';
import { curationHealthLines } from '../core/curation/healthLines';
import { UsageError, type ParsedArgs } from './args';

export interface CurationDeps {
  open(): Promise<ProjectEngine>;
  ensureIndexed(engine: ProjectEngine): Promise<void>;
  printLine(value: string): void;
  printJson(value: unknown): void;
}

function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** The ranking mode of `--ranking`, or undefined; anything else is a usage error. */
export function rankingFlag(args: ParsedArgs): RankingMode | undefined {
  const value = stringFlag(args, '--ranking');
  if (value === undefined) return undefined;
  const mode = rankingModes.find((entry) => entry === value);
  if (!mode) throw new UsageError(`--ranking must be one of ${rankingModes.join(', ')}`);
  return mode;
}

/** `PATH`, `PATH#L<start>-L<end>` or `PATH --symbol QUALIFIED.NAME`. */
export function pinTarget(spec: string, symbol: string | undefined): PinTarget {
  const range = spec.match(/^(.+?)#L(\d+)(?:-L?(\d+))?$/);
  if (range) {
    if (symbol) throw new UsageError('a pin is a range or a --symbol, not both');
    const startLine = Number(range[2]);
    const endLine = Number(range[3] ?? range[2]);
    if (startLine < 1 || endLine < startLine) throw new UsageError(`invalid line range in ${spec}`);
    return { target: 'range', path: range[1], startLine, endLine };
  }
  return symbol ? { target: 'declaration', path: spec, qualifiedName: symbol } : { target: 'file', path: spec };
}

function pinLine(pin: ListedPin): string {
  const where =
    pin.status === 'stale' ? `stale (${pin.reason ?? 'not found'})` : `${pin.status} ${pin.path}:${pin.startLine}-${pin.endLine}`;
  return `${pin.id}  ${pin.target.padEnd(11)}  ${pin.label}  ${where}`;
}

function memoryLine(item: MemoryRow): string {
  const link = item.supersededBy ? ` → ${item.supersededBy}` : item.reason ? ` (${item.reason})` : '';
  return `${item.id}  ${item.status.padEnd(10)}  ${JSON.stringify(item.claim)}${link}`;
}

/** `pk pins`, `pk memory`, `pk feedback` and `pk ranker`: the same log the extension writes. */
export async function runCuration(
  command: 'pins' | 'memory' | 'feedback' | 'ranker',
  args: ParsedArgs,
  deps: CurationDeps,
): Promise<number> {
  const json = args.flags.has('--json');
  const [action, ...rest] = args.positionals;
  const engine = await deps.open();
  try {
    await deps.ensureIndexed(engine);
    const report = (value: unknown, line: string) => (json ? deps.printJson(value) : deps.printLine(line));
    switch (command) {
      case 'pins': {
        if (action === undefined || action === 'list') {
          const pins = await engine.curate('pins', {});
          if (json) deps.printJson(pins);
          else if (pins.length === 0) deps.printLine('No pins.');
          else for (const pin of pins) deps.printLine(pinLine(pin));
          return 0;
        }
        if (action === 'add') {
          if (rest.length !== 1) throw new UsageError('pins add takes one PATH, PATH#L<start>-L<end>, or PATH with --symbol NAME');
          const pinned = await engine.curate('pin', { target: pinTarget(rest[0], stringFlag(args, '--symbol')) });
          report(pinned, pinned.created ? `Pinned ${pinned.id}.` : `Already pinned as ${pinned.id}.`);
          return 0;
        }
        if (action === 'remove') {
          if (rest.length !== 1) throw new UsageError('pins remove takes one PIN_ID');
          report(await engine.curate('unpin', { id: rest[0] }), `Unpinned ${rest[0]}.`);
          return 0;
        }
        throw new UsageError(`unknown pins action ${action}`);
      }
      case 'memory': {
        if (action === undefined || action === 'list') {
          const items = await engine.curate('memory', {});
          if (json) deps.printJson(items);
          else if (items.length === 0) deps.printLine('No memory items.');
          else for (const item of items) deps.printLine(memoryLine(item));
          return 0;
        }
        const key = stringFlag(args, '--key');
        if (action === 'add') {
          const claim = rest.join(' ').trim();
          if (!claim) throw new UsageError('memory add needs a claim');
          const added = await engine.curate('remember', { claim, key });
          report(added, added.created ? `Remembered ${added.id}.` : `Already remembered as ${added.id}.`);
          return 0;
        }
        const [id, ...words] = rest;
        if (!id) throw new UsageError(`memory ${action} needs a MEMORY_ID`);
        if (action === 'supersede') {
          const claim = words.join(' ').trim();
          if (!claim) throw new UsageError('memory supersede needs the new claim');
          const added = await engine.curate('supersede', { id, claim, key });
          report(added, `${id} is superseded by ${added.id}.`);
          return 0;
        }
        if (action === 'invalidate' || action === 'expire') {
          report(
            await engine.curate(action, { id, reason: words.join(' ') || undefined }),
            `${id} is ${action === 'expire' ? 'expired' : 'invalid'}.`,
          );
          return 0;
        }
        throw new UsageError(`unknown memory action ${action}`);
      }
      case 'feedback': {
        if (action !== 'useful' && action !== 'not-useful') throw new UsageError('feedback takes useful or not-useful, then the QUERY');
        const query = rest.join(' ').trim();
        if (!query) throw new UsageError('feedback needs the QUERY whose answer it labels');
        const snippet = stringFlag(args, '--snippet');
        // The labels are on this run's answer to the query: its candidates and their features.
        await engine.search(query);
        const labeled = await engine.curate('label', { query, label: action, source: 'cli', snippetIds: snippet ? [snippet] : undefined });
        report(labeled, `Recorded ${labeled.ids.length} ${action} labels.`);
        return 0;
      }
      case 'ranker': {
        if (action === 'train') {
          const trained = await engine.curate('train', {});
          const { promotion } = trained;
          const verdict = promotion.passed ? 'promoted' : `not promoted (${promotion.reasons.join('; ')})`;
          report(trained, `Trained ${trained.modelId} on ${trained.labels} labels: ${verdict}.`);
          return 0;
        }
        if (action !== undefined && action !== 'status') throw new UsageError(`unknown ranker action ${action}`);
        const health = await engine.curate('health', {});
        if (json) deps.printJson(health);
        else for (const line of curationHealthLines(health)) deps.printLine(line);
        return 0;
      }
    }
  } finally {
    await engine.close();
  }
}
