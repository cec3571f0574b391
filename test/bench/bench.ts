/**
 * `npm run bench`: cold and incremental indexing, search latency with live hash verification,
 * and `git grep -F` / `rg -F` baselines on a deterministic generated corpus, plus a real
 * codebase available offline. It only measures and prints; it never asserts a wall time.
 * The last line of output is one JSON object with every figure.
 *
 *   node dist/bench.js [--large] [--files N] [--n N] [--grep-n N] [--seed N] [--real DIR]
 *                      [--skip-real] [--skip-hybrid] [--skip-worker] [--skip-parse] [--index-only]
 *                      [--cache DIR] [--keep-db] [--skip-mcp] [--skip-child] [--child-only]
 *                      [--parse-workers N] [--checkout REF_A..REF_B] [--checkout-cli FILE] [--checkout-rounds N]
 *                      [--checkout-workers LIST]
 */
import * as fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ProjectEngine, type OpenEngineOptions } from '../../src/core/engine';
import { checkoutBench, type CheckoutFigures } from './checkoutBench';
import type { ChunkParser } from '../../src/core/parsing/chunkParser';
import { ParserChain } from '../../src/core/parsing/parserChain';
import { createStructuralParsers } from '../../src/core/parsing/structuralParsers';
import { nodePorts } from '../../src/core/ports';
import { EngineClient } from '../../src/core/worker/engineClient';
import { splitLines } from '../../src/core/tokens';
import { childIndexBench, runIndexChild, type ChildIndexFigures } from './childIndex';
import { ensureCorpus, type Corpus, type CorpusSample } from './corpus';
import { mcpBench, serveBenchMcp, type McpFigures } from './mcpBench';
import { defaultWorkerScript, runParseBench } from './parseBench';
import { Random } from './random';
import { commandVersion, formatStats, mb, ResourceMonitor, round, summarize, timeCommand, type LatencyStats } from './stats';
import { limitHeapGrowth } from '../../src/cli/heapGrowth';

// ---- arguments ------------------------------------------------------------------------------

interface Args {
  large: boolean;
  files: number;
  largeFiles: number;
  n: number;
  grepN: number;
  seed: number;
  real: string | undefined;
  skipReal: boolean;
  skipHybrid: boolean;
  skipWorker: boolean;
  skipParse: boolean;
  skipMcp: boolean;
  skipCorpus: boolean;
  /** No child-process index (peak RSS of indexing alone, bytes each save writes). */
  skipChild: boolean;
  /** Only the child-process index for each corpus: no in-process index, search or later sections of it. */
  childOnly: boolean;
  indexOnly: boolean;
  cache: string | undefined;
  keepDb: boolean;
  /** A folder whose database is reused (and kept) across runs, so search work can skip the cold index. */
  dbDirectory: string | undefined;
  /** Parse worker threads for the bench's engines (0: all parsing on the engine's thread); the engine's default when absent. */
  parseWorkers: number | undefined;
  /** With `--real DIR` (a git repository): `pk index` after checking out the second ref over an index of the first. */
  checkout: [string, string] | undefined;
  /** Other builds' `cli.js` measured in the same checkout pass (`--checkout-cli FILE`, repeatable). */
  checkoutClis: string[];
  /** Checkout rounds (second ref, then back to the first) per build and worker setting. */
  checkoutRounds: number;
  /** `PK_PARSE_WORKERS` settings of the checkout runs (`default` leaves it unset). */
  checkoutWorkers: string[];
  /** A file the ranked results of every search query are written to (one JSON line per query), to compare two builds. */
  dumpResults: string | undefined;
  /** A file the CPU profile of the search section alone is written to (a `.cpuprofile`, as `node --cpu-prof` writes). */
  profileSearch: string | undefined;
  /** Per corpus only the (reused or cold) index and the search section: for A/B runs of search work with `--db`. */
  searchOnly: boolean;
  /** The search kinds timed (`--kinds long,fullText`); every kind's queries are still built, so a seed gives the same queries. */
  kinds: string[] | undefined;
  /**
   * Times each search kind's queries are run (`--search-rounds N`, default 1). The usual figures
   * are the first round's. More rounds add each round's p50 and p99 (a query asked again finds its
   * term counts and rows in the engine's caches) and, over the rounds after the first, each
   * query's fastest and slowest run: the spread that interruptions (collections, the machine's
   * other work) add to one query's cost.
   */
  searchRounds: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    large: false,
    files: 5000,
    largeFiles: 50_000,
    n: 200,
    grepN: 30,
    seed: 20240601,
    real: undefined,
    skipReal: false,
    skipHybrid: false,
    skipWorker: false,
    skipParse: false,
    skipMcp: false,
    skipCorpus: false,
    skipChild: false,
    childOnly: false,
    indexOnly: false,
    cache: undefined,
    keepDb: false,
    dbDirectory: undefined,
    parseWorkers: undefined,
    checkout: undefined,
    checkoutClis: [],
    checkoutRounds: 1,
    checkoutWorkers: ['default', '0'],
    dumpResults: undefined,
    profileSearch: undefined,
    searchOnly: false,
    kinds: undefined,
    searchRounds: 1,
  };
  const number = (flag: string, value: string | undefined): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`${flag} needs a positive integer`);
    return parsed;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case '--large':
        args.large = true;
        break;
      case '--files':
        args.files = number(flag, argv[++i]);
        break;
      case '--large-files':
        args.largeFiles = number(flag, argv[++i]);
        break;
      case '--n':
        args.n = number(flag, argv[++i]);
        break;
      case '--grep-n':
        args.grepN = number(flag, argv[++i]);
        break;
      case '--seed':
        args.seed = number(flag, argv[++i]);
        break;
      case '--real':
        args.real = argv[++i];
        break;
      case '--skip-real':
        args.skipReal = true;
        break;
      case '--skip-hybrid':
        args.skipHybrid = true;
        break;
      case '--skip-worker':
        args.skipWorker = true;
        break;
      case '--skip-parse':
        args.skipParse = true;
        break;
      case '--skip-mcp':
        args.skipMcp = true;
        break;
      case '--skip-corpus':
        args.skipCorpus = true;
        break;
      case '--skip-child':
        args.skipChild = true;
        break;
      case '--child-only':
        args.childOnly = true;
        break;
      case '--index-only':
        args.indexOnly = true;
        break;
      case '--cache':
        args.cache = argv[++i];
        break;
      case '--keep-db':
        args.keepDb = true;
        break;
      case '--parse-workers': {
        const value = Number(argv[++i]);
        if (!Number.isInteger(value) || value < 0) throw new Error('--parse-workers needs a whole number (0: no workers)');
        args.parseWorkers = value;
        break;
      }
      case '--checkout': {
        const refs = (argv[++i] ?? '').split('..');
        if (refs.length !== 2 || !refs[0] || !refs[1]) throw new Error('--checkout needs REF_A..REF_B');
        args.checkout = [refs[0], refs[1]];
        break;
      }
      case '--checkout-cli':
        args.checkoutClis.push(path.resolve(argv[++i] ?? ''));
        break;
      case '--checkout-rounds':
        args.checkoutRounds = number(flag, argv[++i]);
        break;
      case '--checkout-workers': {
        const settings = (argv[++i] ?? '').split(',').filter(Boolean);
        if (settings.length === 0 || settings.some((setting) => setting !== 'default' && !/^\d+$/.test(setting)))
          throw new Error('--checkout-workers needs a list such as default,0');
        args.checkoutWorkers = settings;
        break;
      }
      case '--db':
        args.dbDirectory = path.resolve(argv[++i] ?? '.');
        break;
      case '--dump-results':
        args.dumpResults = path.resolve(argv[++i] ?? 'results.jsonl');
        break;
      case '--search-only':
        args.searchOnly = true;
        args.skipChild = args.skipReal = args.skipHybrid = args.skipWorker = args.skipParse = args.skipMcp = true;
        break;
      case '--kinds': {
        const kinds = (argv[++i] ?? '').split(',').filter(Boolean);
        const known = ['path', 'phrase', 'fullText', 'symbol', 'long'];
        if (kinds.length === 0 || kinds.some((kind) => !known.includes(kind))) throw new Error(`--kinds needs some of ${known.join(',')}`);
        args.kinds = kinds;
        break;
      }
      case '--search-rounds':
        args.searchRounds = number(flag, argv[++i]);
        break;
      case '--profile-search':
        args.profileSearch = path.resolve(argv[++i] ?? 'search.cpuprofile');
        break;
      case '--help':
      case '-h':
        console.log(
          'node dist/bench.js [--large] [--files N] [--large-files N] [--n N] [--grep-n N] [--seed N] [--real DIR] [--skip-real] [--skip-hybrid] [--skip-worker] [--skip-parse] [--skip-mcp] [--skip-corpus] [--skip-child] [--child-only] [--index-only] [--cache DIR] [--keep-db] [--db DIR] [--parse-workers N] [--checkout REF_A..REF_B] [--checkout-cli FILE] [--checkout-rounds N] [--checkout-workers LIST] [--dump-results FILE] [--profile-search FILE] [--search-only] [--kinds K1,K2] [--search-rounds N]',
        );
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument ${flag} (try --help)`);
    }
  }
  return args;
}

const log = (line = ''): void => console.log(line);

/** The bench's engines' parse pool (`--parse-workers`); the engine's default when undefined. */
let parsePool: OpenEngineOptions['parsePool'];

function repositoryRoot(): string {
  for (let directory = __dirname; ; directory = path.dirname(directory)) {
    const manifest = path.join(directory, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if ((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'project-knowledge') return directory;
      } catch {
        // keep walking up
      }
    }
    if (path.dirname(directory) === directory) return process.cwd();
  }
}

function errorLine(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}

// ---- parsers --------------------------------------------------------------------------------

/** The folder holding both the grammar `.wasm` files and the `.scm` queries (dist/grammars in the bundle). */
function grammarDirectory(repoRoot: string): string | undefined {
  const candidates = [path.join(__dirname, 'grammars'), path.join(repoRoot, 'dist', 'grammars')];
  return candidates.find((candidate) => fs.existsSync(path.join(candidate, 'manifest.json')));
}

async function makeParsers(repoRoot: string): Promise<{ parsers: ChunkParser[]; note: string }> {
  const directory = grammarDirectory(repoRoot);
  if (!directory) return { parsers: [], note: 'no grammars folder found (dist/grammars); text windows only' };
  try {
    const parsers = createStructuralParsers({ grammarDirectory: directory, queryDirectory: directory });
    return {
      parsers,
      note:
        parsers.length === 0
          ? `createStructuralParsers returned no parsers; text windows only`
          : `${parsers.map((parser) => `${parser.kind}@${parser.version}`).join(', ')} from ${directory}`,
    };
  } catch (error) {
    return { parsers: [], note: `structural parsers failed to load (${errorLine(error)}); text windows only` };
  }
}

// ---- indexing -------------------------------------------------------------------------------

type Bounds = { maxFiles: number; maxTotalBytes: number; maxDirectories: number };

interface IndexFigures {
  label: string;
  root: string;
  files: number;
  snippets: number;
  symbols: number;
  excluded: number;
  exclusionsByReason: Record<string, number>;
  sourceBytes: number;
  indexSeconds: number;
  /** User + system CPU seconds of this process during the cold index (less sensitive to other load than wall time). */
  indexCpuSeconds: number;
  loadAverage: number[];
  filesPerSecond: number;
  mbPerSecond: number;
  phasesMs: { discover: number; index: number; save: number };
  dbBytes: number;
  dbPageBytes: number;
  dbRatio: number;
  rssMB: number;
  rssBeforeMB: number;
  eventLoopMaxMs: number;
  eventLoopP99Ms: number;
  parsersUsed: string[];
  parserCoverage: Record<string, Record<string, number>>;
  parserNote: string;
  boundNotes: string[];
  errors: string[];
}

interface OpenIndex {
  engine: ProjectEngine;
  dbPath: string;
  tempDirectory: string;
  figures: IndexFigures;
}

async function coldIndex(
  label: string,
  root: string,
  bounds: Bounds,
  repoRoot: string,
  useGit = true,
  dbDirectory?: string,
): Promise<OpenIndex> {
  if (dbDirectory) fs.mkdirSync(dbDirectory, { recursive: true });
  const tempDirectory = dbDirectory ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pk-bench-'));
  const dbPath = path.join(tempDirectory, 'index.sqlite');
  const { parsers, note } = await makeParsers(repoRoot);
  const monitor = new ResourceMonitor();
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const engine = await ProjectEngine.open({ root, dbPath, ports: nodePorts(), parsers, options: { bounds, useGit }, parsePool });
  const loadBefore = os.loadavg()[0];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let firstIndexing: number | undefined;
  let saving: number | undefined;
  monitor.start();
  const report = await engine.sync({
    onProgress: (progress) => {
      if (progress.phase === 'indexing' && firstIndexing === undefined) firstIndexing = performance.now();
      if (progress.phase === 'saving' && saving === undefined) saving = performance.now();
    },
  });
  const ended = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  const resources = monitor.stop();
  const seconds = (ended - started) / 1000;
  const health = await engine.health();
  let sourceBytes = 0;
  for (const file of engine.store.catalog.files().values()) sourceBytes += file.bytes;
  const dbPageBytes = engine.store.byteSize();
  const dbBytes = fs.existsSync(dbPath) ? fs.statSync(dbPath).size : dbPageBytes;
  const coverage: Record<string, Record<string, number>> = {};
  const used = new Set<string>();
  for (const row of health.parserCoverage) {
    coverage[row.language] ??= {};
    const key = row.reason ? `${row.parser} (${row.reason})` : row.parser;
    coverage[row.language][key] = (coverage[row.language][key] ?? 0) + row.files;
    used.add(row.parser);
  }
  const figures: IndexFigures = {
    label,
    root,
    files: health.files,
    snippets: health.snippets,
    symbols: health.symbols,
    excluded: health.excluded,
    exclusionsByReason: health.exclusionsByReason,
    sourceBytes,
    indexSeconds: round(seconds, 3),
    indexCpuSeconds: round((cpu.user + cpu.system) / 1e6, 2),
    loadAverage: [round(loadBefore, 2), round(os.loadavg()[0], 2)],
    filesPerSecond: round(health.files / seconds, 1),
    mbPerSecond: round(mb(sourceBytes) / seconds, 2),
    phasesMs: {
      discover: round((firstIndexing ?? ended) - started, 0),
      index: round((saving ?? ended) - (firstIndexing ?? started), 0),
      save: round(ended - (saving ?? ended), 0),
    },
    dbBytes,
    dbPageBytes,
    dbRatio: round(dbBytes / Math.max(1, sourceBytes), 3),
    rssMB: resources.peakRssMB,
    rssBeforeMB: round(mb(rssBefore), 1),
    eventLoopMaxMs: resources.eventLoopMaxMs,
    eventLoopP99Ms: resources.eventLoopP99Ms,
    parsersUsed: [...used].sort(),
    parserCoverage: coverage,
    parserNote: note,
    boundNotes: report.boundNotes,
    errors: report.errors.slice(0, 5),
  };
  log(`[${label}] cold index of ${root}`);
  log(
    `  parse workers: ${engine.analyzer ? `${engine.analyzer.size}, ${engine.analyzer.analyzed} files analyzed in them` : 'none (all on this thread)'}`,
  );
  log(`  parsers: ${note}`);
  log(
    `  ${figures.files} files (${figures.excluded} excluded${
      Object.keys(figures.exclusionsByReason).length
        ? `: ${Object.entries(figures.exclusionsByReason)
            .map(([reason, count]) => `${reason} ${count}`)
            .join(', ')}`
        : ''
    }), ${(sourceBytes / 1e6).toFixed(1)} MB source, ${figures.snippets} snippets, ${figures.symbols} symbols`,
  );
  log(
    `  index ${seconds.toFixed(2)} s  (discover ${figures.phasesMs.discover} ms, index ${figures.phasesMs.index} ms, save ${figures.phasesMs.save} ms)  ${figures.filesPerSecond} files/s  ${figures.mbPerSecond} MB/s`,
  );
  log(
    `  CPU ${figures.indexCpuSeconds} s (user+system of this process; 1-min load average ${figures.loadAverage[0]} before, ${figures.loadAverage[1]} after on ${os.cpus().length} cores)`,
  );
  log(
    `  database ${(dbBytes / 1e6).toFixed(1)} MB on disk (page bytes ${(dbPageBytes / 1e6).toFixed(1)} MB), ratio DB/source ${figures.dbRatio}`,
  );
  log(
    `  RSS peak ${figures.rssMB} MB (before ${figures.rssBeforeMB} MB); event-loop delay max ${figures.eventLoopMaxMs} ms, p99 ${figures.eventLoopP99Ms} ms`,
  );
  log(
    `  parser coverage: ${Object.entries(coverage)
      .map(
        ([language, parsersByKind]) =>
          `${language} ${Object.entries(parsersByKind)
            .map(([parser, count]) => `${parser} ${count}`)
            .join('/')}`,
      )
      .join('; ')}`,
  );
  for (const note of figures.boundNotes) log(`  bound: ${note}`);
  for (const error of figures.errors) log(`  error: ${error}`);
  return { engine, dbPath, tempDirectory, figures };
}

async function timedSync(engine: ProjectEngine): Promise<{ ms: number; reindexed: number; read: number }> {
  const started = performance.now();
  const report = await engine.sync();
  return { ms: round(performance.now() - started, 1), reindexed: report.reindexed, read: report.read };
}

interface IncrementalFigures {
  noChangeMs: number[];
  noChangeMedianMs: number;
  oneFileChangedMs: number;
  oneFileReindexed: number;
  restoreMs: number;
  changedPath: string;
}

async function incremental(open: OpenIndex, corpus: Corpus, label: string): Promise<IncrementalFigures | undefined> {
  try {
    const noChange: number[] = [];
    for (let i = 0; i < 3; i++) noChange.push((await timedSync(open.engine)).ms);
    const sample = corpus.meta.samples.find((candidate) => candidate.language === 'typescript') ?? corpus.meta.samples[0];
    const absolute = path.join(corpus.root, ...sample.path.split('/'));
    const original = fs.readFileSync(absolute);
    const stat = fs.statSync(absolute);
    let changed: { ms: number; reindexed: number };
    try {
      fs.writeFileSync(
        absolute,
        Buffer.concat([original, Buffer.from(`\n${sample.language === 'python' ? '#' : '//'} bench edit ${Date.now()}\n`)]),
      );
      const future = new Date(Date.now() + 5_000);
      fs.utimesSync(absolute, future, future);
      changed = await timedSync(open.engine);
    } finally {
      fs.writeFileSync(absolute, original);
      fs.utimesSync(absolute, stat.atime, stat.mtime);
    }
    const restored = await timedSync(open.engine);
    const sortedNoChange = [...noChange].sort((a, b) => a - b);
    const figures: IncrementalFigures = {
      noChangeMs: noChange,
      noChangeMedianMs: sortedNoChange[1],
      oneFileChangedMs: changed.ms,
      oneFileReindexed: changed.reindexed,
      restoreMs: restored.ms,
      changedPath: sample.path,
    };
    log(
      `[${label}] incremental sync: no change ${noChange.join(' / ')} ms (median ${figures.noChangeMedianMs}); 1 file changed ${figures.oneFileChangedMs} ms (${changed.reindexed} re-indexed); restore ${figures.restoreMs} ms`,
    );
    return figures;
  } catch (error) {
    log(`[${label}] incremental sync failed: ${errorLine(error)}`);
    return undefined;
  }
}

// ---- search ---------------------------------------------------------------------------------

type Kind = 'path' | 'phrase' | 'fullText' | 'symbol' | 'long' | 'hybrid';

interface BenchQuery {
  kind: Kind;
  query: string;
  expectPath: string | undefined;
  /** The literal a grep user would search for. */
  literal?: string;
}

interface KindFigures extends LatencyStats {
  /** Mean CPU milliseconds of this process per query. */
  cpuMeanMs: number;
  /** Median and 99th percentile of the CPU milliseconds of single queries: on a shared machine wall time mostly measures the others' load. */
  cpuP50Ms: number;
  cpuP99Ms: number;
  foundRate: number;
  top1Rate: number;
  meanResults: number;
}

function buildQueries(samples: CorpusSample[], kind: Exclude<Kind, 'hybrid'>, count: number, rng: Random): BenchQuery[] {
  const queries: BenchQuery[] = [];
  const usable = samples.filter((sample) =>
    kind === 'phrase' ? sample.phrases.length > 0 : kind === 'symbol' ? sample.symbols.length > 0 : true,
  );
  if (usable.length === 0) return queries;
  while (queries.length < count) {
    const sample = rng.pick(usable);
    switch (kind) {
      case 'path':
        queries.push({ kind, query: sample.path, expectPath: sample.path, literal: path.posix.basename(sample.path) });
        break;
      case 'phrase': {
        const phrase = rng.pick(sample.phrases);
        queries.push({ kind, query: `"${phrase}"`, expectPath: sample.path, literal: phrase });
        break;
      }
      case 'symbol': {
        const symbol = rng.pick(sample.symbols);
        queries.push({ kind, query: symbol, expectPath: sample.path, literal: symbol });
        break;
      }
      case 'long': {
        // A pasted issue (~3 KB): prose with the file's words and a symbol, a frame from another checkout, log lines.
        const symbol = sample.symbols.length > 0 ? rng.pick(sample.symbols) : (sample.words[0] ?? 'value');
        const prose = `When I call ${symbol} the ${sample.words.slice(0, 6).join(' ')} handling fails and the result is wrong.`;
        const frame = `  File "/home/ci/checkout/${sample.path}", line ${rng.int(1, 40)}, in ${symbol}`;
        const word = (index: number) => sample.words[index % Math.max(1, sample.words.length)] ?? 'x';
        const log = Array.from({ length: 30 }, (_, index) => `${index}: request ${word(index)} failed, retrying`);
        const text = [`Bug: ${symbol} fails`, '', prose, '', 'Traceback (most recent call last):', frame, ...log].join('\n');
        queries.push({ kind, query: text, expectPath: sample.path });
        break;
      }
      default: {
        const words = rng.chance(0.5) ? sample.words.slice(0, 2) : sample.words.slice(0, 3);
        queries.push({ kind, query: words.join(' '), expectPath: sample.path, literal: words[0] });
        break;
      }
    }
  }
  return queries;
}

interface QueryRun {
  cpuMs: number;
  latencies: number[];
  /** CPU milliseconds of each query (this process: user + system). */
  cpuPerQuery: number[];
  found: number;
  top1: number;
  results: number;
  failures: string[];
}

async function runQueries(engine: ProjectEngine, queries: BenchQuery[], dump?: string[]): Promise<QueryRun> {
  const run: QueryRun = { cpuMs: 0, latencies: [], cpuPerQuery: [], found: 0, top1: 0, results: 0, failures: [] };
  const cpuBefore = process.cpuUsage();
  for (const query of queries) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    try {
      const retrieval = await engine.search(query.query);
      run.latencies.push(performance.now() - started);
      const cpu = process.cpuUsage(cpuStarted);
      run.cpuPerQuery.push((cpu.user + cpu.system) / 1000);
      run.results += retrieval.results.length;
      dump?.push(dumpLine(query, retrieval));
      if (query.expectPath && retrieval.results.some((result) => result.path === query.expectPath)) run.found++;
      if (query.expectPath && retrieval.results[0]?.path === query.expectPath) run.top1++;
    } catch (error) {
      run.latencies.push(performance.now() - started);
      const cpu = process.cpuUsage(cpuStarted);
      run.cpuPerQuery.push((cpu.user + cpu.system) / 1000);
      if (run.failures.length < 3) run.failures.push(`${query.query}: ${errorLine(error)}`);
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  run.cpuMs = (cpu.user + cpu.system) / 1000;
  return run;
}

/** What `--search-rounds` adds for one kind (see `Args.searchRounds`). */
interface RepeatedRuns {
  rounds: number;
  /** Each round's latencies, the first being the usual figures. */
  perRound: LatencyStats[];
  /** Over the rounds after the first: each query's fastest run, and its slowest. */
  fastest: LatencyStats;
  slowest: LatencyStats;
}

/** Runs `queries` `rounds - 1` more times, round after round (the first round's times are `first`). */
async function repeatedRuns(engine: ProjectEngine, queries: BenchQuery[], first: number[], rounds: number): Promise<RepeatedRuns> {
  const later: number[][] = first.map(() => []);
  const perRound = [summarize(first)];
  for (let round = 1; round < rounds; round++) {
    const run = await runQueries(engine, queries);
    run.latencies.forEach((latency, index) => later[index].push(latency));
    perRound.push(summarize(run.latencies));
  }
  return {
    rounds,
    perRound,
    fastest: summarize(later.map((runs) => Math.min(...runs))),
    slowest: summarize(later.map((runs) => Math.max(...runs))),
  };
}

/** One query's ranked results and manifest entries, as JSON: two builds that rank alike write the same lines. */
function dumpLine(query: BenchQuery, retrieval: Awaited<ReturnType<ProjectEngine['search']>>): string {
  return JSON.stringify({
    kind: query.kind,
    query: query.query.slice(0, 200),
    results: retrieval.results.map((result) => [
      result.id,
      result.path,
      result.startLine,
      result.endLine,
      result.score,
      result.reason,
      result.matched,
    ]),
    entries: retrieval.manifest.entries.map((entry) => [
      entry.snippetId,
      entry.included,
      entry.reason,
      entry.score,
      entry.startLine,
      entry.endLine,
    ]),
    status: retrieval.manifest.status,
  });
}

function kindFigures(run: QueryRun, queries: number): KindFigures {
  const cpu = summarize(run.cpuPerQuery);
  return {
    ...summarize(run.latencies),
    cpuMeanMs: round(run.cpuMs / Math.max(1, queries), 3),
    cpuP50Ms: cpu.p50Ms,
    cpuP99Ms: cpu.p99Ms,
    foundRate: round(run.found / Math.max(1, queries), 3),
    top1Rate: round(run.top1 / Math.max(1, queries), 3),
    meanResults: round(run.results / Math.max(1, queries), 2),
  };
}

interface SearchFigures {
  kinds: Partial<Record<Kind, KindFigures>>;
  /** With `--search-rounds N` (N > 1): per kind, each round's latencies and, over rounds 2 to N, each query's fastest and slowest run. */
  repeated?: Partial<Record<Kind, RepeatedRuns>>;
  overall: LatencyStats;
  /** Our latency on exactly the phrase and symbol queries whose literals the grep baselines search for. */
  sameTerms: LatencyStats;
  grepTerms: string[];
}

async function searchBench(
  engine: ProjectEngine,
  samples: CorpusSample[],
  n: number,
  grepN: number,
  seed: number,
  label: string,
  dumpFile?: string,
  timedKinds?: string[],
  rounds = 1,
): Promise<SearchFigures> {
  const rng = new Random(seed ^ 0x5eed);
  const kinds: Array<Exclude<Kind, 'hybrid'>> = ['path', 'phrase', 'fullText', 'symbol', 'long'];
  const warmup = kinds.flatMap((kind) => buildQueries(samples, kind, 5, rng));
  await runQueries(engine, warmup);
  const figures: SearchFigures = { kinds: {}, overall: summarize([]), sameTerms: summarize([]), grepTerms: [] };
  const all: number[] = [];
  const sameTerms: number[] = [];
  const half = Math.ceil(grepN / 2);
  const dump: string[] | undefined = dumpFile ? [] : undefined;
  log(`[${label}] search latency with live SHA-256 verification, ${n} queries per kind after ${warmup.length} warm-up queries:`);
  for (const kind of kinds) {
    const queries = buildQueries(samples, kind, n, rng);
    if (timedKinds && !timedKinds.includes(kind)) continue;
    const run = await runQueries(engine, queries, dump);
    const stats = kindFigures(run, queries.length);
    figures.kinds[kind] = stats;
    all.push(...run.latencies);
    if (kind === 'phrase' || kind === 'symbol') {
      sameTerms.push(...run.latencies.slice(0, half));
      figures.grepTerms.push(...queries.slice(0, half).map((query) => query.literal as string));
    }
    log(
      `  ${kind.padEnd(8)} ${formatStats(stats)}  cpu ${stats.cpuMeanMs.toFixed(2)} ms/query (p50 ${stats.cpuP50Ms.toFixed(2)}, p99 ${stats.cpuP99Ms.toFixed(2)}); expected file in results ${(stats.foundRate * 100).toFixed(0)}%, first ${(stats.top1Rate * 100).toFixed(0)}%, ${stats.meanResults} results/query`,
    );
    log(`           e.g. ${JSON.stringify(queries[0]?.query)}`);
    for (const failure of run.failures) log(`           failed: ${failure}`);
    if (rounds > 1) {
      const spread = await repeatedRuns(engine, queries, run.latencies, rounds);
      figures.repeated ??= {};
      figures.repeated[kind] = spread;
      const byRound = spread.perRound.map((stats, index) => `${index + 1}: ${stats.p50Ms.toFixed(2)} / ${stats.p99Ms.toFixed(2)}`);
      log(`           p50 / p99 by round (ms) ${byRound.join(', ')}`);
      log(
        `           rounds 2-${spread.rounds}, each query's fastest run: p50 ${spread.fastest.p50Ms.toFixed(2)}, p99 ${spread.fastest.p99Ms.toFixed(2)} ms; its slowest: p50 ${spread.slowest.p50Ms.toFixed(2)}, p99 ${spread.slowest.p99Ms.toFixed(2)} ms`,
      );
    }
  }
  figures.overall = summarize(all);
  figures.sameTerms = summarize(sameTerms);
  log(`  overall  ${formatStats(figures.overall)}`);
  if (dumpFile && dump) {
    fs.writeFileSync(dumpFile, dump.map((line) => `${line}\n`).join(''));
    log(`  ranked results of ${dump.length} queries written to ${dumpFile}`);
  }
  return figures;
}

/** Runs `work` under the inspector's CPU profiler when `file` is set, and writes the profile there. */
async function profiled<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!file) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    log(`  CPU profile of the search section written to ${file}`);
  }
}

// ---- baselines ------------------------------------------------------------------------------

interface BaselineFigures {
  tool: string;
  version: string | null;
  stats: LatencyStats | null;
  meanMatchLines: number | null;
  note?: string;
}

async function baseline(tool: 'git-grep' | 'rg', root: string, terms: string[], label: string): Promise<BaselineFigures> {
  const command = tool === 'git-grep' ? 'git' : 'rg';
  const version = await commandVersion(command);
  if (!version) {
    log(`[${label}] ${tool}: ${command} is not on PATH; skipped`);
    return { tool, version: null, stats: null, meanMatchLines: null, note: `${command} missing` };
  }
  const argsFor = (term: string): string[] => (tool === 'git-grep' ? ['grep', '-F', '-n', '-e', term] : ['-F', '-n', '-e', term, '.']);
  for (const term of terms.slice(0, 3)) await timeCommand(command, argsFor(term), root); // warm-up
  const latencies: number[] = [];
  let lines = 0;
  for (const term of terms) {
    const result = await timeCommand(command, argsFor(term), root);
    if (!result.ok) {
      log(`[${label}] ${tool} failed: ${result.error}; skipped`);
      return { tool, version, stats: null, meanMatchLines: null, note: result.error };
    }
    latencies.push(result.ms);
    lines += result.lines;
  }
  const stats = summarize(latencies);
  log(`[${label}] ${tool.padEnd(8)} ${formatStats(stats)}  ${round(lines / terms.length, 1)} matching lines/term  (${version})`);
  return { tool, version, stats, meanMatchLines: round(lines / terms.length, 1) };
}

// ---- hybrid ---------------------------------------------------------------------------------

interface HybridFigures {
  reopenMs: number;
  syncMs: number;
  embeddings: number;
  active: boolean;
  stats: KindFigures | null;
}

async function hybridBench(
  dbPath: string,
  root: string,
  bounds: Bounds,
  samples: CorpusSample[],
  n: number,
  seed: number,
  repoRoot: string,
  label: string,
): Promise<HybridFigures | undefined> {
  let engine: ProjectEngine | undefined;
  try {
    const { parsers } = await makeParsers(repoRoot);
    const opened = performance.now();
    engine = await ProjectEngine.open({ root, dbPath, ports: nodePorts(), parsers, options: { bounds, semantic: true } });
    const reopenMs = round(performance.now() - opened, 1);
    const synced = await timedSync(engine);
    const rng = new Random(seed ^ 0x4b1d);
    const queries = buildQueries(samples, 'fullText', n, rng).map((query) => ({ ...query, kind: 'hybrid' as const }));
    await runQueries(engine, queries.slice(0, 10));
    const run = await runQueries(engine, queries);
    const embeddings = Number(engine.store.database.exec('SELECT COUNT(*) FROM derived_embeddings')[0]?.values[0]?.[0] ?? 0);
    const stats = kindFigures(run, queries.length);
    log(
      `[${label}] reopen from disk ${reopenMs} ms (database load), then sync with semantic on ${synced.ms} ms; ${embeddings} stored vectors${embeddings === 0 ? ' — hybrid mode did not store vectors, so these are lexical figures' : ''}`,
    );
    log(`  hybrid   ${formatStats(stats)}  expected file in results ${(stats.foundRate * 100).toFixed(0)}%`);
    return { reopenMs, syncMs: synced.ms, embeddings, active: embeddings > 0, stats };
  } catch (error) {
    log(`[${label}] hybrid run failed: ${errorLine(error)}`);
    return undefined;
  } finally {
    await engine?.close().catch(() => undefined);
  }
}

// ---- parse + chunk throughput ---------------------------------------------------------------

interface ParseThroughput {
  language: string;
  parsers: Record<string, number>;
  files: number;
  bytes: number;
  firstFileMs: number;
  seconds: number;
  mbPerSecond: number;
  filesPerSecond: number;
  chunksPerFile: number;
}

/** The parser chain alone (structural parsers, then text windows) over files of each corpus language. */
async function parseThroughput(corpus: Corpus, repoRoot: string, perLanguage: number, label: string): Promise<ParseThroughput[]> {
  const { parsers, note } = await makeParsers(repoRoot);
  const chain = new ParserChain(parsers);
  const figures: ParseThroughput[] = [];
  log(`[${label}] parse+chunk throughput of the parser chain (${note}), up to ${perLanguage} files per language:`);
  try {
    for (const language of ['typescript', 'python', 'go']) {
      const texts = corpus.meta.samples
        .filter((sample) => sample.language === language)
        .slice(0, perLanguage)
        .map((sample) => ({ path: sample.path, text: fs.readFileSync(path.join(corpus.root, ...sample.path.split('/')), 'utf8') }));
      if (texts.length < 2) continue;
      const parse = (file: { path: string; text: string }) =>
        chain.parse(
          { path: file.path, language, text: file.text, lines: splitLines(file.text) },
          { windowLines: 80, overlapLines: 12, timeoutMs: Math.min(750, Math.max(100, Math.round(file.text.length / 1000))) },
        );
      const firstStarted = performance.now();
      await parse(texts[0]); // loads the grammar, once
      const firstFileMs = round(performance.now() - firstStarted, 1);
      const kinds: Record<string, number> = {};
      let bytes = 0;
      let chunks = 0;
      const started = performance.now();
      for (const file of texts.slice(1)) {
        const result = await parse(file);
        kinds[result.parser] = (kinds[result.parser] ?? 0) + 1;
        bytes += Buffer.byteLength(file.text);
        chunks += result.chunks.length;
      }
      const seconds = (performance.now() - started) / 1000;
      const files = texts.length - 1;
      const entry: ParseThroughput = {
        language,
        parsers: kinds,
        files,
        bytes,
        firstFileMs,
        seconds: round(seconds, 3),
        mbPerSecond: round(mb(bytes) / seconds, 2),
        filesPerSecond: round(files / seconds, 1),
        chunksPerFile: round(chunks / files, 1),
      };
      figures.push(entry);
      log(
        `  ${language.padEnd(10)} ${entry.mbPerSecond} MB/s  ${entry.filesPerSecond} files/s  ${entry.chunksPerFile} chunks/file  via ${Object.entries(
          kinds,
        )
          .map(([kind, count]) => `${kind} ${count}`)
          .join(', ')}  (first file incl. grammar load ${firstFileMs} ms)`,
      );
    }
  } catch (error) {
    log(`[${label}] parse throughput failed: ${errorLine(error)}`);
  } finally {
    chain.dispose();
  }
  return figures;
}

// ---- cold index in the engine worker -------------------------------------------------------

interface WorkerFigures {
  script: string;
  files: number;
  symbols: number;
  syncSeconds: number;
  filesPerSecond: number;
  /** The calling thread's event-loop delay beyond the 10 ms sampling interval during the sync. */
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** The same, idle for 2 s just before: what the machine's own load costs. */
  idleLagP99Ms: number;
  idleLagMaxMs: number;
  progressEvents: number;
}

/**
 * The same cold index run by the bundled engine worker (dist/worker.js) while this thread
 * measures its own event-loop delay: what the extension host would feel (issue 3, item 6).
 */
async function workerIndex(root: string, bounds: Bounds, repoRoot: string, label: string): Promise<WorkerFigures | undefined> {
  const script = defaultWorkerScript(repoRoot);
  if (!fs.existsSync(script)) {
    log(`[${label}] worker index: ${script} is missing; skipped`);
    return undefined;
  }
  const resolution = 10;
  const beyond = (nanoseconds: number) => round(Math.max(0, nanoseconds / 1e6 - resolution), 1);
  let progressEvents = 0;
  const client = new EngineClient(script, {
    onProgress: () => {
      progressEvents++;
    },
  });
  const projectKey = 'bench';
  try {
    await client.request('open', { projectKey, root, options: { bounds } });
    const idle = monitorEventLoopDelay({ resolution });
    idle.enable();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    idle.disable();
    const busy = monitorEventLoopDelay({ resolution });
    busy.enable();
    const started = performance.now();
    await client.request('sync', { projectKey, full: true, persist: true });
    const seconds = (performance.now() - started) / 1000;
    busy.disable();
    const health = await client.request('health', { projectKey });
    await client.request('close', { projectKey });
    const figures: WorkerFigures = {
      script,
      files: health.files,
      symbols: health.symbols,
      syncSeconds: round(seconds, 2),
      filesPerSecond: round(health.files / seconds, 1),
      lagP50Ms: beyond(busy.percentile(50)),
      lagP99Ms: beyond(busy.percentile(99)),
      lagMaxMs: beyond(busy.max),
      idleLagP99Ms: beyond(idle.percentile(99)),
      idleLagMaxMs: beyond(idle.max),
      progressEvents,
    };
    log(
      `[${label}] cold index in the engine worker (${path.relative(repoRoot, script)}): ${figures.files} files, ${figures.symbols} symbols in ${figures.syncSeconds} s (${figures.filesPerSecond} files/s)`,
    );
    log(
      `  calling thread event-loop lag during that sync: p50 ${figures.lagP50Ms} ms, p99 ${figures.lagP99Ms} ms, max ${figures.lagMaxMs} ms (idle just before: p99 ${figures.idleLagP99Ms} ms, max ${figures.idleLagMaxMs} ms); ${progressEvents} progress events`,
    );
    return figures;
  } catch (error) {
    log(`[${label}] worker index failed: ${errorLine(error)}`);
    return undefined;
  } finally {
    await client.dispose().catch(() => undefined);
  }
}

// ---- one corpus -----------------------------------------------------------------------------

/** The child-process index figures per corpus label, for the summary line. */
const childRuns = new Map<string, ChildIndexFigures>();

interface CorpusFigures {
  corpus: { root: string; files: number; bytes: number; reused: boolean; generationSeconds: number; git: boolean };
  index: IndexFigures;
  incremental: IncrementalFigures | undefined;
  search: SearchFigures | undefined;
  gitGrep: BaselineFigures | undefined;
  rg: BaselineFigures | undefined;
  closeMs: number;
  hybrid: HybridFigures | undefined;
  parse: ParseThroughput[];
  worker: WorkerFigures | undefined;
  mcp: McpFigures | undefined;
}

async function benchCorpus(corpus: Corpus, args: Args, n: number, repoRoot: string, label: string): Promise<CorpusFigures | undefined> {
  const bounds: Bounds = {
    maxFiles: Math.max(10_000, corpus.meta.files * 2),
    maxTotalBytes: Math.max(50_000_000, corpus.meta.totalBytes * 2),
    maxDirectories: 1_000_000,
  };
  log(
    `[${label}] bounds raised for the benchmark: maxFiles ${bounds.maxFiles}, maxTotalBytes ${bounds.maxTotalBytes} (defaults 10,000 files / 50,000,000 bytes would drop part of this corpus)`,
  );
  let child: ChildIndexFigures | undefined;
  if (!args.skipChild) {
    const edited = corpus.meta.samples.find((candidate) => candidate.language === 'typescript') ?? corpus.meta.samples[0];
    child = await childIndexBench(label, path.join(repoRoot, 'dist', 'bench.js'), corpus.root, bounds, edited.path, log);
    log();
  }
  if (child) childRuns.set(label, child);
  if (args.childOnly) return undefined;
  let open: OpenIndex;
  try {
    open = await coldIndex(label, corpus.root, bounds, repoRoot, true, args.dbDirectory ? path.join(args.dbDirectory, label) : undefined);
    if (args.dbDirectory)
      log(
        `[${label}] --db: the database in ${open.tempDirectory} is reused and kept, so the "cold index" above is cold only on the first run`,
      );
  } catch (error) {
    log(`[${label}] cold index failed: ${errorLine(error)}`);
    return undefined;
  }
  const figures: CorpusFigures = {
    corpus: {
      root: corpus.root,
      files: corpus.meta.files,
      bytes: corpus.meta.totalBytes,
      reused: corpus.reused,
      generationSeconds: round(corpus.meta.generationSeconds, 1),
      git: corpus.meta.git,
    },
    index: open.figures,
    incremental: undefined,
    search: undefined,
    gitGrep: undefined,
    rg: undefined,
    closeMs: NaN,
    hybrid: undefined,
    parse: [],
    worker: undefined,
    mcp: undefined,
  };
  try {
    if (!args.searchOnly) figures.incremental = await incremental(open, corpus, label);
    if (!args.indexOnly) {
      figures.search = await profiled(args.profileSearch, () =>
        searchBench(open.engine, corpus.meta.samples, n, args.grepN, args.seed, label, args.dumpResults, args.kinds, args.searchRounds),
      );
    }
    if (!args.indexOnly && !args.searchOnly && figures.search) {
      const terms = figures.search.grepTerms;
      log(
        `[${label}] baselines on the same corpus and the same ${terms.length} literal terms (${Math.ceil(args.grepN / 2)} phrases + ${Math.ceil(args.grepN / 2)} symbol names); our mean on those exact queries: ${figures.search.sameTerms.meanMs.toFixed(2)} ms`,
      );
      figures.gitGrep = corpus.meta.git
        ? await baseline('git-grep', corpus.root, terms, label)
        : { tool: 'git-grep', version: null, stats: null, meanMatchLines: null, note: 'corpus is not a git repository' };
      figures.rg = await baseline('rg', corpus.root, terms, label);
      const ours = figures.search.overall.meanMs;
      for (const result of [figures.gitGrep, figures.rg]) {
        if (result?.stats)
          log(
            `  speed-up vs ${result.tool}: ${(result.stats.meanMs / ours).toFixed(1)}× (all kinds), ${(result.stats.meanMs / figures.search.sameTerms.meanMs).toFixed(1)}× (same phrase/symbol queries)`,
          );
      }
    }
  } finally {
    const closing = performance.now();
    await open.engine.close().catch((error: unknown) => log(`[${label}] close failed: ${errorLine(error)}`));
    figures.closeMs = round(performance.now() - closing, 1);
  }
  if (!args.indexOnly && !args.skipMcp) {
    try {
      figures.mcp = await mcpBench({
        cli: path.join(repoRoot, 'dist', 'cli.js'),
        root: corpus.root,
        dbPath: open.dbPath,
        bounds,
        samples: corpus.meta.samples,
        n,
        cliN: Math.min(n, 10),
        seed: args.seed,
        label,
        log,
      });
    } catch (error) {
      log(`[${label}] pk mcp bench failed: ${errorLine(error)}`);
    }
  }
  if (!args.indexOnly && !args.skipHybrid)
    figures.hybrid = await hybridBench(open.dbPath, corpus.root, bounds, corpus.meta.samples, n, args.seed, repoRoot, label);
  if (!args.indexOnly && !args.searchOnly) figures.parse = await parseThroughput(corpus, repoRoot, 300, label);
  if (!args.skipWorker) figures.worker = await workerIndex(corpus.root, bounds, repoRoot, label);
  if (args.keepDb || args.dbDirectory) log(`[${label}] database kept at ${open.dbPath}`);
  else fs.rmSync(open.tempDirectory, { recursive: true, force: true });
  return figures;
}

// ---- real codebases -------------------------------------------------------------------------

interface RealQuery {
  query: string;
  expectPath?: string;
}

interface RealFigures {
  label: string;
  root: string;
  index: IndexFigures;
  queries: Array<{ query: string; expectPath: string | null; meanMs: number; p99Ms: number; found: boolean; topPath: string | null }>;
  searchMeanMs: number | null;
}

/**
 * A Python standard library on this machine, preferring a full one with its test suite (a pyenv
 * build: a few thousand files) over the trimmed Debian one in /usr/lib.
 */
function pythonStdlib(): { root: string; note: string } | undefined {
  const candidates: string[] = [];
  const pyenv = path.join(os.homedir(), '.pyenv', 'versions');
  try {
    const numeric = (version: string) => version.split(/\D+/).filter(Boolean).map(Number);
    const newestFirst = (a: string, b: string) => {
      const x = numeric(a);
      const y = numeric(b);
      for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (y[i] ?? 0) - (x[i] ?? 0);
      return 0;
    };
    for (const version of fs.readdirSync(pyenv).sort(newestFirst)) {
      const lib = path.join(pyenv, version, 'lib');
      for (const name of fs.existsSync(lib) ? fs.readdirSync(lib).sort() : [])
        if (/^python3\.\d+$/.test(name)) candidates.push(path.join(lib, name));
    }
  } catch {
    // no pyenv
  }
  candidates.push('/usr/lib/python3.13', '/usr/lib/python3.12', '/usr/lib/python3.11', '/usr/lib/python3.10', '/usr/local/lib/python3.11');
  const usable = candidates.filter((candidate) => fs.existsSync(path.join(candidate, 'json', 'decoder.py')));
  const full = usable.find((candidate) => fs.existsSync(path.join(candidate, 'test', 'test_json')));
  if (full) return { root: full, note: 'a full CPython standard library with its test suite; site-packages is excluded as a virtualenv' };
  return usable[0] ? { root: usable[0], note: 'the Python standard library installed on this machine' } : undefined;
}

const stdlibQueries: RealQuery[] = [
  { query: 'urlsplit', expectPath: 'urllib/parse.py' },
  { query: 'ThreadPoolExecutor', expectPath: 'concurrent/futures/thread.py' },
  { query: 'OrderedDict', expectPath: 'collections/__init__.py' },
  { query: 'HTTPConnection.request', expectPath: 'http/client.py' },
  { query: 'json/decoder.py', expectPath: 'json/decoder.py' },
  { query: 'http/cookies.py', expectPath: 'http/cookies.py' },
  { query: '"Expecting property name enclosed in double quotes"', expectPath: 'json/decoder.py' },
  { query: 'where are cookies parsed?', expectPath: 'http/cookies.py' },
  { query: 'parse http headers', expectPath: undefined },
];

const projectQueries: RealQuery[] = [
  { query: 'ProjectEngine', expectPath: 'src/core/engine.ts' },
  { query: 'src/core/store.ts', expectPath: 'src/core/store.ts' },
  // Split so that this file does not itself contain the phrase it looks for.
  { query: `"Refusing to index the hom${'e directory'}"`, expectPath: 'src/core/discovery.ts' },
  { query: 'bm25 matchinfo ranking', expectPath: 'src/core/store.ts' },
];

async function benchReal(
  label: string,
  root: string,
  queries: RealQuery[],
  repoRoot: string,
  reps: number,
  useGit = true,
): Promise<RealFigures | undefined> {
  const bounds: Bounds = { maxFiles: 100_000, maxTotalBytes: 2_000_000_000, maxDirectories: 1_000_000 };
  let open: OpenIndex;
  try {
    open = await coldIndex(label, root, bounds, repoRoot, useGit);
  } catch (error) {
    log(`[${label}] cold index of ${root} failed: ${errorLine(error)}`);
    return undefined;
  }
  const figures: RealFigures = { label, root, index: open.figures, queries: [], searchMeanMs: null };
  try {
    const files = [...open.engine.store.catalog.files().keys()].sort();
    const rng = new Random(7);
    const all: RealQuery[] = [...queries.filter((query) => !query.expectPath || files.includes(query.expectPath))];
    for (const file of rng.sample(files, 3)) all.push({ query: file, expectPath: file });
    const latencies: number[] = [];
    for (const query of all) {
      await open.engine.search(query.query);
      const times: number[] = [];
      let topPath: string | null = null;
      let found = false;
      for (let i = 0; i < reps; i++) {
        const started = performance.now();
        const retrieval = await open.engine.search(query.query);
        times.push(performance.now() - started);
        topPath = retrieval.results[0]?.path ?? null;
        found = query.expectPath ? retrieval.results.some((result) => result.path === query.expectPath) : retrieval.results.length > 0;
      }
      latencies.push(...times);
      const stats = summarize(times);
      figures.queries.push({
        query: query.query,
        expectPath: query.expectPath ?? null,
        meanMs: stats.meanMs,
        p99Ms: stats.p99Ms,
        found,
        topPath,
      });
      log(
        `  ${stats.meanMs.toFixed(2).padStart(7)} ms  ${found ? 'found' : 'MISS '}  ${JSON.stringify(query.query)}${query.expectPath ? ` → ${query.expectPath}` : ''} (top: ${topPath ?? 'none'})`,
      );
    }
    figures.searchMeanMs = latencies.length ? summarize(latencies).meanMs : null;
    if (figures.searchMeanMs !== null) log(`  mean over these queries: ${figures.searchMeanMs.toFixed(2)} ms (${reps} runs each)`);
  } finally {
    await open.engine.close().catch(() => undefined);
    fs.rmSync(open.tempDirectory, { recursive: true, force: true });
  }
  return figures;
}

// ---- main -----------------------------------------------------------------------------------

async function main(): Promise<void> {
  // The MCP section starts this script again as the server it measures (see serveBenchMcp).
  if (process.argv[2] === '--serve-mcp') {
    process.exitCode = await serveBenchMcp(process.argv.slice(3));
    return;
  }
  // The child-process index section starts this script again for each measured process.
  if (process.argv[2] === '--index-child') {
    // The child measures what `pk index` would use, so it grows its heap as the CLI does.
    limitHeapGrowth();
    process.exitCode = await runIndexChild(process.argv.slice(3), async () => (await makeParsers(repositoryRoot())).parsers);
    return;
  }
  const args = parseArgs(process.argv.slice(2));
  if (args.parseWorkers !== undefined) parsePool = args.parseWorkers === 0 ? false : { size: args.parseWorkers };
  const repoRoot = repositoryRoot();
  const cacheDirectory = path.resolve(args.cache ?? path.join(repoRoot, '.cache', 'bench'));
  fs.mkdirSync(cacheDirectory, { recursive: true });
  const gitVersion = await commandVersion('git');
  const rgVersion = await commandVersion('rg');
  log(
    `Project Knowledge benchmark — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()}`,
  );
  log(`  git: ${gitVersion ?? 'missing'}; rg: ${rgVersion ?? 'missing (rgMeanMs will be null)'}`);
  if (!args.large) log(`  (50,000-file figures are skipped by default; run them with: npm run build && node dist/bench.js --large)`);
  log();

  let main: CorpusFigures | undefined;
  if (!args.skipCorpus)
    try {
      const corpus = ensureCorpus(cacheDirectory, args.files, args.seed, log);
      log();
      main = await benchCorpus(corpus, args, args.n, repoRoot, `corpus-${args.files}`);
    } catch (error) {
      log(`[corpus-${args.files}] failed: ${errorLine(error)}`);
    }
  log();

  let large: CorpusFigures | undefined;
  if (args.large) {
    try {
      const corpus = ensureCorpus(cacheDirectory, args.largeFiles, args.seed, log);
      log();
      large = await benchCorpus(corpus, { ...args, skipWorker: true }, Math.min(args.n, 100), repoRoot, `corpus-${args.largeFiles}`);
    } catch (error) {
      log(`[corpus-${args.largeFiles}] failed: ${errorLine(error)}`);
    }
    log();
  }

  let checkout: CheckoutFigures | undefined;
  if (args.checkout && args.real) {
    try {
      checkout = checkoutBench(
        path.resolve(args.real),
        args.checkout,
        { clis: [path.join(repoRoot, 'dist', 'cli.js'), ...args.checkoutClis], rounds: args.checkoutRounds, workers: args.checkoutWorkers },
        log,
      );
    } catch (error) {
      log(`[checkout] failed: ${errorLine(error)}`);
    }
    log();
  } else if (args.checkout) log('[checkout] needs --real DIR (a git repository)');

  const real: RealFigures[] = [];
  if (!args.skipReal) {
    const stdlib = args.real ? undefined : pythonStdlib();
    const realRoot = args.real ? path.resolve(args.real) : stdlib?.root;
    if (realRoot) {
      log(`Real codebase: ${realRoot}${stdlib ? ` (${stdlib.note})` : ''}; discovery walks the tree (useGit false)`);
      // A library folder may sit inside some other repository (pyenv is a git clone that ignores
      // versions/), so it is walked, not listed by git.
      const result = await benchReal('real', realRoot, args.real ? [] : stdlibQueries, repoRoot, 20, false);
      if (result) real.push(result);
      log();
    } else log('Real codebase: no Python standard library found; pass --real DIR');
    log(`This repository: ${repoRoot}`);
    const self = await benchReal('self', repoRoot, projectQueries, repoRoot, 20);
    if (self) real.push(self);
    log();
  }

  let parseBenchReal: Record<string, unknown> | null = null;
  if (!args.skipParse && !args.indexOnly) {
    try {
      parseBenchReal = await runParseBench({ root: repoRoot, log });
    } catch (error) {
      log(`parse bench failed: ${errorLine(error)}`);
    }
    log();
  }

  const search = main?.search;
  const summary = {
    bench: 'project-knowledge',
    node: process.version,
    cpus: os.cpus().length,
    corpusFiles: main?.corpus.files ?? null,
    files: main?.index.files ?? null,
    sourceBytes: main?.index.sourceBytes ?? null,
    indexSeconds: main?.index.indexSeconds ?? null,
    filesPerSecond: main?.index.filesPerSecond ?? null,
    mbPerSecond: main?.index.mbPerSecond ?? null,
    indexCpuSeconds: main?.index.indexCpuSeconds ?? null,
    indexPhasesMs: main?.index.phasesMs ?? null,
    loadAverageDuringIndex: main?.index.loadAverage ?? null,
    dbBytes: main?.index.dbBytes ?? null,
    dbPageBytes: main?.index.dbPageBytes ?? null,
    dbRatio: main?.index.dbRatio ?? null,
    rssMB: main?.index.rssMB ?? null,
    processMaxRssMB: round(process.resourceUsage().maxRSS / 1024, 1),
    childIndex: Object.fromEntries(childRuns),
    eventLoopMaxMs: main?.index.eventLoopMaxMs ?? null,
    snippets: main?.index.snippets ?? null,
    symbols: main?.index.symbols ?? null,
    parsersUsed: main?.index.parsersUsed ?? [],
    parserCoverage: main?.index.parserCoverage ?? {},
    parseThroughput: main?.parse ?? [],
    worker: main?.worker ?? null,
    parseBench: parseBenchReal,
    incrementalNoChangeMs: main?.incremental?.noChangeMedianMs ?? null,
    incrementalOneFileMs: main?.incremental?.oneFileChangedMs ?? null,
    searchMeanMs: search?.overall.meanMs ?? null,
    searchP50Ms: search?.overall.p50Ms ?? null,
    searchP99Ms: search?.overall.p99Ms ?? null,
    sameTermsSearchMeanMs: search?.sameTerms.meanMs ?? null,
    path: search?.kinds.path ?? null,
    phrase: search?.kinds.phrase ?? null,
    fullText: search?.kinds.fullText ?? null,
    symbol: search?.kinds.symbol ?? null,
    long: search?.kinds.long ?? null,
    hybrid: main?.hybrid ? { ...main.hybrid.stats, active: main.hybrid.active, embeddings: main.hybrid.embeddings } : null,
    reopenMs: main?.hybrid?.reopenMs ?? null,
    mcp: main?.mcp ?? null,
    gitGrepMeanMs: main?.gitGrep?.stats?.meanMs ?? null,
    gitGrepP99Ms: main?.gitGrep?.stats?.p99Ms ?? null,
    rgMeanMs: main?.rg?.stats?.meanMs ?? null,
    rgP99Ms: main?.rg?.stats?.p99Ms ?? null,
    speedupVsGitGrep: main?.gitGrep?.stats && search ? round(main.gitGrep.stats.meanMs / search.overall.meanMs, 2) : null,
    speedupVsRg: main?.rg?.stats && search ? round(main.rg.stats.meanMs / search.overall.meanMs, 2) : null,
    large: large
      ? {
          files: large.index.files,
          sourceBytes: large.index.sourceBytes,
          indexSeconds: large.index.indexSeconds,
          filesPerSecond: large.index.filesPerSecond,
          dbBytes: large.index.dbBytes,
          rssMB: large.index.rssMB,
          searchMeanMs: large.search?.overall.meanMs ?? null,
          searchP50Ms: large.search?.overall.p50Ms ?? null,
          searchP99Ms: large.search?.overall.p99Ms ?? null,
          path: large.search?.kinds.path ?? null,
          phrase: large.search?.kinds.phrase ?? null,
          fullText: large.search?.kinds.fullText ?? null,
          symbol: large.search?.kinds.symbol ?? null,
          hybrid: large.hybrid?.stats ? { ...large.hybrid.stats, active: large.hybrid.active, embeddings: large.hybrid.embeddings } : null,
          gitGrepMeanMs: large.gitGrep?.stats?.meanMs ?? null,
          rgMeanMs: large.rg?.stats?.meanMs ?? null,
          incrementalNoChangeMs: large.incremental?.noChangeMedianMs ?? null,
          incrementalOneFileMs: large.incremental?.oneFileChangedMs ?? null,
        }
      : null,
    checkout: checkout ?? null,
    real: real.map((entry) => ({
      label: entry.label,
      root: entry.root,
      files: entry.index.files,
      sourceBytes: entry.index.sourceBytes,
      indexSeconds: entry.index.indexSeconds,
      dbBytes: entry.index.dbBytes,
      rssMB: entry.index.rssMB,
      parsersUsed: entry.index.parsersUsed,
      searchMeanMs: entry.searchMeanMs,
      found: entry.queries.filter((query) => query.found).length,
      queries: entry.queries.length,
    })),
  };
  log('Summary (JSON on the last line):');
  log(
    `  ${summary.files ?? '?'} files indexed in ${summary.indexSeconds ?? '?'} s; search mean ${summary.searchMeanMs ?? '?'} ms, p99 ${summary.searchP99Ms ?? '?'} ms; git grep ${summary.gitGrepMeanMs ?? 'n/a'} ms; rg ${summary.rgMeanMs ?? 'n/a'} ms; DB ${summary.dbRatio ?? '?'}× source; RSS ${summary.rssMB ?? '?'} MB`,
  );
  console.log(JSON.stringify(summary));
}

main().catch((error: unknown) => {
  console.log(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  console.log(
    JSON.stringify({
      bench: 'project-knowledge',
      error: errorLine(error),
      files: null,
      indexSeconds: null,
      searchMeanMs: null,
      searchP99Ms: null,
      gitGrepMeanMs: null,
      rgMeanMs: null,
      dbBytes: null,
      rssMB: null,
    }),
  );
  process.exitCode = 1;
});
