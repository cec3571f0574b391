import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { canonicalRoot, RootRefusedError } from '../core/discovery';
import { parseCitation, ProjectEngine, UserInputError } from '../core/engine';
import { sha256Hex } from '../core/hashing';
import { nodePorts, type Logger } from '../core/ports';
import { formatRankedFiles } from '../core/retrieval/fileRanking';
import { citationOf, publishedResult } from '../core/retrieval/retrieve';
import { displayText } from '../core/safeText';
import { createStructuralParsers } from '../core/parsing/structuralParsers';
import { parseArgs, positiveInteger, UsageError } from './args';
import { limitHeapGrowth } from './heapGrowth';
export { limitHeapGrowth } from './heapGrowth';
export { indexRelaunch } from './indexRelaunch';
import { runNavigation } from './navigation';
import { quickCommand, useBaselineWasm } from './wasmTiering';
import { rankingFlag, runCuration } from './curation';
import type { RankingMode } from '../core/curation/ranker';

const usage = `Usage:
  pk index [ROOT] [--db FILE] [--full] [--semantic] [--json]
                                                     index or incrementally sync ROOT (default .)
  pk search QUERY [--root ROOT] [--db FILE] [--limit N] [--semantic] [--files] [--json]
  pk symbols [--root ROOT] [--db FILE] [--json]      every current declaration
  pk get CITATION [--root ROOT] [--db FILE]          one snippet, hash-checked against the live file
  pk context QUERY [--root ROOT] [--db FILE] [--budget TOKENS] [--semantic] [--json]
  pk health [--root ROOT] [--db FILE] [--json]
  pk find-symbol NAME [--kind KIND] [--path PATH] [--root ROOT] [--db FILE] [--json]
  pk references SYMBOL [--path PATH] [--root ROOT] [--db FILE] [--json]
  pk outline [PATH] [--budget TOKENS] [--root ROOT] [--db FILE] [--json]
  pk mcp [ROOT] [--db FILE]                          stdio MCP server: search, find_symbol, references, outline, read, health
  pk pins [list | add PATH[#L<start>-L<end>] [--symbol NAME] | remove PIN_ID] [--root ROOT] [--db FILE] [--json]
  pk memory [list | add CLAIM [--key KEY] | supersede ID CLAIM | invalidate ID [REASON] | expire ID [REASON]] [--json]
  pk feedback useful|not-useful QUERY [--snippet ID]  label the answer to QUERY (all its snippets, or one)
  pk ranker [status | train] [--json]                 the learned ranker: label counts, model, promotion gate
A citation is PATH#L<start>-L<end>@<sha256> (the @<sha256> part is optional).
--semantic adds hybrid ranking: local feature-hashing vectors fused with the lexical ranks.
--files ranks whole files, each with its evidence (matching declarations and lines) and a score.
--ranking off|shadow|active (search, context, mcp): the learned ranker's mode (default off).
Pins and memory live in <db>.curation.jsonl beside the database; search and context put them first.`;

/** The default database: one file per canonical root in the user's data folder. */
export function defaultDbPath(canonicalRoot: string): string {
  const base =
    process.env.PK_DATA_DIR ??
    (process.env.XDG_DATA_HOME
      ? path.join(process.env.XDG_DATA_HOME, 'project-knowledge')
      : path.join(os.homedir(), '.local', 'share', 'project-knowledge'));
  return path.join(base, `${sha256Hex(canonicalRoot).slice(0, 24)}.sqlite`);
}

function stderrLogger(): Logger {
  return {
    info: () => undefined,
    warn: (message) => process.stderr.write(`pk: ${displayText(message)}\n`),
    error: (message) => process.stderr.write(`pk: ${displayText(message)}\n`),
  };
}

async function openEngine(
  command: string | undefined,
  root: string,
  dbFlag: string | true | undefined,
  semantic = false,
  rankingMode?: RankingMode,
): Promise<ProjectEngine> {
  const ports = nodePorts(stderrLogger());
  // The engine's own checks (a missing folder, the filesystem root, the home directory), before the database folder is created.
  const canonical = await canonicalRoot(root, ports);
  const dbPath = typeof dbFlag === 'string' ? path.resolve(dbFlag) : defaultDbPath(canonical);
  fs.mkdirSync(path.dirname(dbPath), { recursive: true });
  // Before sql.js is loaded: V8 decides how to compile a module when it compiles it.
  if (quickCommand(command, holdsData(dbPath))) useBaselineWasm();
  const grammarDirectory = path.join(__dirname, 'grammars');
  return ProjectEngine.open({
    root: canonical,
    dbPath,
    ports,
    parsers: createStructuralParsers({ grammarDirectory, queryDirectory: grammarDirectory }),
    options: { semantic },
    parsePool: parseWorkers(process.env.PK_PARSE_WORKERS),
    curation: { rankingMode },
  });
}

/** Whether `file` is there with some bytes in it (an empty file is replaced by a new index). */
function holdsData(file: string): boolean {
  try {
    return fs.statSync(file).size > 0;
  } catch {
    return false;
  }
}

/** `PK_PARSE_WORKERS`: how many parse worker threads a large sync uses (0 parses on the main thread); unset or invalid, the default. */
function parseWorkers(value: string | undefined): false | { size?: number } {
  const count = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isInteger(count) || count < 0) return {};
  return count === 0 ? false : { size: count };
}

function progressReporter(): ((progress: { phase: string; done: number; total: number }) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return (progress) => {
    const now = Date.now();
    if (now - last < 100 && progress.done !== progress.total) return;
    last = now;
    process.stderr.write(`\rpk: ${progress.phase} ${progress.done}/${progress.total}   `);
    if (progress.phase === 'saving') process.stderr.write('\n');
  };
}

async function ensureIndexed(engine: ProjectEngine): Promise<void> {
  if (!engine.loadedFromDisk) {
    process.stderr.write(`pk: no index for ${engine.root} yet; indexing it first\n`);
    await engine.sync({ onProgress: progressReporter() });
  }
}

function print(value: string): void {
  process.stdout.write(value.endsWith('\n') ? value : `${value}\n`);
}

/**
 * One line of plain output whose fields come from the project (paths, symbol names, messages):
 * controls, line separators, bidi, zero-width and tag characters are shown as `\uXXXX`
 * (`displayText`), so nothing a file name or declaration holds can move the cursor, recolour the
 * terminal, reorder the line or start a new one.
 */
function printLine(line: string): void {
  print(displayText(line));
}

/**
 * One JSON document on one line, escaped like `quoteJson`: unsafe characters can only occur
 * inside its strings, so every JSON parser reads back the same value while a terminal shows them
 * as `\uXXXX`.
 */
function printJson(value: unknown): void {
  print(displayText(JSON.stringify(value)));
}

async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.flags.has('--help') || args.flags.has('-h') || args.command === 'help') {
    print(usage);
    return 0;
  }
  const json = args.flags.has('--json');
  const semantic = args.flags.has('--semantic');
  const rootFlag = args.flags.get('--root');
  const root = typeof rootFlag === 'string' ? rootFlag : '.';
  const needsQuery = (name: string) => {
    const query = args.positionals.join(' ').trim();
    if (!query) throw new UsageError(`${name} needs a ${name === 'get' ? 'citation' : 'query'}`);
    return query;
  };
  switch (args.command) {
    case 'index': {
      if (args.positionals.length > 1) throw new UsageError('index takes at most one ROOT');
      const engine = await openEngine(args.command, args.positionals[0] ?? root, args.flags.get('--db'), semantic);
      try {
        const report = await engine.sync({ full: args.flags.has('--full'), onProgress: progressReporter() });
        if (json) printJson(report);
        else {
          printLine(
            `Indexed ${report.root}: ${report.discovered} files found, ${report.reindexed} (re)indexed, ${report.unchanged} unchanged, ${report.removed} removed, ${report.excluded} excluded in ${report.durationMs} ms.`,
          );
          for (const note of report.boundNotes) printLine(`Bound: ${note}`);
          for (const error of report.errors) printLine(`Error: ${error}`);
        }
      } finally {
        await engine.close();
      }
      return 0;
    }
    case 'search':
    case 'context': {
      const query = needsQuery(args.command);
      if (args.command === 'context' && args.flags.has('--files')) throw new UsageError('--files applies to search only');
      const engine = await openEngine(args.command, root, args.flags.get('--db'), semantic, rankingFlag(args));
      try {
        await ensureIndexed(engine);
        if (args.command === 'search' && args.flags.has('--files')) {
          const retrieval = await engine.search(query, { limit: positiveInteger(args.flags, '--limit'), granularity: 'files' });
          const files = retrieval.files ?? [];
          if (json) print(JSON.stringify({ files, manifest: retrieval.manifest }));
          else print(files.length > 0 ? formatRankedFiles(files) : (retrieval.manifest.note ?? 'No results.'));
        } else if (args.command === 'search') {
          const retrieval = await engine.search(query, { limit: positiveInteger(args.flags, '--limit') });
          if (json) {
            printJson({
              results: retrieval.results.map(publishedResult),
              manifest: retrieval.manifest,
            });
          } else if (retrieval.results.length === 0) {
            printLine(retrieval.manifest.note ?? 'No results.');
          } else {
            for (const result of retrieval.results) {
              printLine(
                `${result.score.toFixed(1).padStart(6)}  ${result.path}:${result.startLine}-${result.endLine}  ${result.reason}${result.symbol ? `  ${result.symbol}` : ''}`,
              );
            }
          }
        } else {
          const context = await engine.context(query, {
            budgetTokens: positiveInteger(args.flags, '--budget'),
            limit: positiveInteger(args.flags, '--limit'),
          });
          if (json) printJson({ preamble: context.preamble, blocks: context.blocks, manifest: context.retrieval.manifest });
          else print([context.preamble, ...context.blocks, context.summary].join('\n\n'));
        }
      } finally {
        await engine.close();
      }
      return 0;
    }
    case 'symbols': {
      if (args.positionals.length > 0) throw new UsageError('symbols takes no arguments');
      const engine = await openEngine(args.command, root, args.flags.get('--db'));
      try {
        await ensureIndexed(engine);
        const symbols = await engine.symbols();
        if (json)
          printJson(
            symbols.map((symbol) => ({
              path: symbol.path,
              name: symbol.name,
              qualifiedName: symbol.qualifiedName,
              kind: symbol.kind,
              startLine: symbol.startLine,
              endLine: symbol.endLine,
            })),
          );
        else
          for (const symbol of symbols)
            printLine(`${symbol.path}:${symbol.startLine}-${symbol.endLine}  ${symbol.kind}  ${symbol.qualifiedName}`);
      } finally {
        await engine.close();
      }
      return 0;
    }
    case 'get': {
      const citation = needsQuery('get');
      parseCitation(citation);
      const engine = await openEngine(args.command, root, args.flags.get('--db'));
      try {
        // get serves only what the index holds, so a root never indexed is indexed first (after the citation parsed), as for search.
        await ensureIndexed(engine);
        const snippet = await engine.get(citation);
        if (json) printJson({ ...snippet, citation: citationOf(snippet) });
        else print(snippet.text);
      } finally {
        await engine.close();
      }
      return 0;
    }
    case 'health': {
      if (args.positionals.length > 0) throw new UsageError('health takes no arguments');
      const engine = await openEngine(args.command, root, args.flags.get('--db'));
      try {
        const health = await engine.health();
        if (engine.openNote) health.warnings.unshift(engine.openNote);
        if (json) printJson(health);
        else print(engine.formatHealth(health));
      } finally {
        await engine.close();
      }
      return 0;
    }
    case 'find-symbol':
    case 'references':
    case 'outline':
      return runNavigation(args.command, args, {
        open: () => openEngine(args.command, root, args.flags.get('--db')),
        ensureIndexed,
        print,
      });
    case 'mcp':
      if (args.positionals.length > 1) throw new UsageError('mcp takes at most one ROOT');
      {
        // Loaded here: the MCP SDK and the tools' zod schemas cost every other command 30-60 ms of start-up (docs/measurements.md).
        const { serveMcp } = await import('./mcp.js');
        return serveMcp(await openEngine(args.command, args.positionals[0] ?? root, args.flags.get('--db'), false, rankingFlag(args)));
      }
    case 'pins':
    case 'memory':
    case 'feedback':
    case 'ranker':
      return runCuration(args.command, args, {
        open: () => openEngine(args.command, root, args.flags.get('--db'), false, rankingFlag(args)),
        ensureIndexed,
        printLine,
        printJson,
      });
    case undefined:
      throw new UsageError('missing command');
    default:
      throw new UsageError(`unknown command ${args.command}`);
  }
}

/** Runs the CLI; every failure becomes one line on stderr and a non-zero exit code. */
export async function main(argv: string[]): Promise<number> {
  // A closed pipe (`pk symbols --json | head`) ends the output quietly instead of crashing.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  try {
    return await run(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`pk: ${displayText(error.message)}\n${usage}\n`);
      return 2;
    }
    if (error instanceof UserInputError || error instanceof RootRefusedError) {
      process.stderr.write(`pk: ${displayText(error.message)}\n`);
      return 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`pk: ${displayText(message.split('\n')[0])}\n`);
    return 1;
  }
}

if (require.main === module) {
  limitHeapGrowth();
  // main turns every failure into a message and an exit code; it never rejects.
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
