/**
 * Parse benchmarks for `npm run bench` (issue 3): parse+chunk throughput per language through
 * the real parser chain over real files on this machine, and the calling thread's event-loop
 * lag while the engine worker indexes a generated project. Both only measure and print; the
 * caller decides what to do with the figures. Nothing here asserts a wall time.
 *
 * Grammar files: the bundled bench (dist/bench.js) finds them in `dist/grammars` (wasm and
 * queries side by side); a tsc build (out/) uses node_modules/@vscode/tree-sitter-wasm/wasm
 * and the queries in grammars/. Both can be passed explicitly.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import { languageForPath } from '../../src/core/language';
import type { ParseOptions, ParseResult } from '../../src/core/parsing/chunkParser';
import { ParserChain } from '../../src/core/parsing/parserChain';
import { createStructuralParsers } from '../../src/core/parsing/structuralParsers';
import { splitLines } from '../../src/core/tokens';
import { EngineClient } from '../../src/core/worker/engineClient';
import type { SyncProgress } from '../../src/core/sync';

// ---- locations --------------------------------------------------------------------------------

export interface GrammarPaths {
  /** Folder holding the grammar `.wasm` files. */
  grammarDirectory: string;
  /** Folder holding the `.scm` tag queries and manifest.json. */
  queryDirectory: string;
}

/**
 * The repository root: the first folder above this file with package.json and
 * grammars/manifest.json (dist/ has the manifest but no package.json), else the working folder.
 */
export function findRepositoryRoot(start: string = __dirname): string {
  let current = path.resolve(start);
  for (let depth = 0; depth < 8; depth++) {
    if (fs.existsSync(path.join(current, 'package.json')) && fs.existsSync(path.join(current, 'grammars', 'manifest.json'))) return current;
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return process.cwd();
}

/** dist/grammars next to a bundle, else the tsc layout under the repository root. */
export function defaultGrammarPaths(root: string = findRepositoryRoot()): GrammarPaths {
  const bundled = path.join(__dirname, 'grammars');
  if (fs.existsSync(path.join(bundled, 'manifest.json')) && fs.readdirSync(bundled).some((file) => file.endsWith('.wasm'))) {
    return { grammarDirectory: bundled, queryDirectory: bundled };
  }
  return {
    grammarDirectory: path.join(root, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'),
    queryDirectory: path.join(root, 'grammars'),
  };
}

/** The parse options sync.ts passes for a file of this length (window 80, overlap 12). */
export function syncParseOptions(textLength: number): ParseOptions {
  return { windowLines: 80, overlapLines: 12, timeoutMs: Math.min(750, Math.max(100, Math.round(textLength / 1000))) };
}

/** The product's default per-file bound (maxFileBytes); larger files are never parsed. */
export const maxFileBytes = 512_000;

/** Reads a file the way the engine does: UTF-8, byte-order mark dropped, editor line numbering. */
export function readSource(file: string): { text: string; lines: string[]; bytes: number } {
  const buffer = fs.readFileSync(file);
  const text = buffer.toString('utf8').replace(/^\uFEFF/, '');
  return { text, lines: splitLines(text), bytes: buffer.length };
}

/** Parses one file through a chain exactly as sync.ts does. */
export function parseWithChain(
  chain: ParserChain,
  relativePath: string,
  language: string,
  text: string,
  lines: string[],
): Promise<ParseResult> {
  return chain.parse({ path: relativePath, language, text, lines }, syncParseOptions(text.length));
}

// ---- real files on this machine ----------------------------------------------------------------

/** Lists files under a folder, sorted, skipping dependency and test folders, bounded. */
export function listFiles(
  root: string,
  accept: (file: string) => boolean,
  limit = 20_000,
  skipDirectory: (name: string) => boolean = () => false,
): string[] {
  const found: string[] = [];
  const walk = (directory: string, depth: number): void => {
    if (found.length >= limit || depth > 12) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (found.length >= limit) return;
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!skipDirectory(entry.name)) walk(full, depth + 1);
      } else if (entry.isFile() && accept(full)) {
        found.push(full);
      }
    }
  };
  walk(root, 0);
  return found;
}

const isTestDirectory = (name: string): boolean => /^(tests?|idle_test|__pycache__|node_modules|site-packages|test_.*)$/.test(name);

/** The packages of the Python standard library slice, besides its top-level modules. */
export const pythonSlicePackages = ['asyncio', 'collections', 'concurrent', 'email', 'importlib', 'json', 'logging', 'urllib'];

/**
 * A fixed slice of the Python standard library: every top-level module plus the packages
 * above, without test folders and without files over the product's 512 KB bound.
 */
export function pythonStdlibSlice(stdlib: string): string[] {
  const accept = (file: string) => file.endsWith('.py') && fs.statSync(file).size <= maxFileBytes;
  const topLevel = fs
    .readdirSync(stdlib)
    .sort()
    .map((name) => path.join(stdlib, name))
    .filter((file) => fs.statSync(file).isFile() && accept(file));
  const packages = pythonSlicePackages.flatMap((name) => listFiles(path.join(stdlib, name), accept, 5000, isTestDirectory));
  return [...topLevel, ...packages];
}

function execFileText(command: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 1 << 20 }, (error: Error | null, stdout) =>
      error ? reject(error) : resolve(stdout.toString()),
    );
  });
}

/** The standard library folder of `python3` (or $PK_PYTHON), else a known install, else undefined. */
export async function findPythonStdlib(python: string = process.env.PK_PYTHON ?? 'python3'): Promise<string | undefined> {
  try {
    const reported = (await execFileText(python, ['-c', "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], 20_000)).trim();
    if (reported && fs.existsSync(path.join(reported, 'os.py'))) return reported;
  } catch {
    // Fall through to well-known places.
  }
  const candidates = ['/usr/lib/python3.11', path.join(os.homedir(), '.pyenv', 'versions', '3.11.7', 'lib', 'python3.11')];
  return candidates.find((candidate) => fs.existsSync(path.join(candidate, 'os.py')));
}

/** TypeScript packages in node_modules that ship `.ts` sources (not only `.d.ts`). */
export const typeScriptSourcePackages = ['@azure/msal-common/src', '@azure/msal-node/src', '@azure/msal-browser/src', 'ajv/lib'];

export function isTypeScriptSource(file: string): boolean {
  return /\.(ts|mts|cts|tsx)$/.test(file) && !/\.d\.(ts|mts|cts)$/.test(file);
}

/** Where real files of each language may live on a developer machine; missing roots are skipped. */
function realRoots(root: string): Record<string, string[]> {
  const nodeModules = path.join(root, 'node_modules');
  return {
    typescript: typeScriptSourcePackages.map((name) => path.join(nodeModules, name)),
    tsx: [],
    javascript: ['ajv/dist', 'mocha/lib', 'playwright-core/lib'].map((name) => path.join(nodeModules, name)),
    python: [],
    go: ['/usr/local/go/src', '/usr/lib/go/src', path.join(os.homedir(), 'go', 'pkg', 'mod'), '/usr/share/doc/git/contrib'],
    rust: [path.join(os.homedir(), '.cargo', 'registry', 'src'), ...rustSourceRoots()],
    java: ['/usr/share/java-src', '/usr/lib/jvm/src'],
    csharp: [],
    cpp: ['/usr/include/c++'],
    c: ['/usr/include', '/usr/share/doc'],
    php: ['/usr/share/php', '/usr/lib/google-cloud-sdk/platform/google_appengine/php'],
    ruby: ['/usr/lib/ruby', '/usr/share/ruby', '/var/lib/gems'],
    bash: ['/usr/lib/perf-core/tests/shell', '/usr/share/doc/git/contrib', '/usr/share/bash-completion'],
  };
}

function rustSourceRoots(): string[] {
  const toolchains = path.join(os.homedir(), '.rustup', 'toolchains');
  try {
    return fs.readdirSync(toolchains).map((name) => path.join(toolchains, name, 'lib', 'rustlib', 'src', 'rust', 'library'));
  } catch {
    return [];
  }
}

export interface LanguageFiles {
  language: string;
  files: string[];
  /** Where the files came from, for the printout. */
  sources: string[];
}

/**
 * Real files per structural language: the labelled corpus, the Python standard library slice,
 * node_modules sources and whatever the well-known system folders hold, up to a byte budget.
 */
export async function collectRealFiles(root: string, bytesPerLanguage: number): Promise<LanguageFiles[]> {
  const languages = ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java', 'csharp', 'cpp', 'c', 'php', 'ruby', 'bash'];
  const roots = realRoots(root);
  const stdlib = await findPythonStdlib();
  const corpus = path.join(root, 'test', 'quality', 'declarations');
  const result: LanguageFiles[] = [];
  for (const language of languages) {
    const files: string[] = [];
    const sources: string[] = [];
    let bytes = 0;
    const take = (candidates: string[], label: string): void => {
      let taken = 0;
      for (const file of candidates) {
        if (bytes >= bytesPerLanguage) break;
        const size = fs.statSync(file).size;
        if (size === 0 || size > maxFileBytes) continue;
        files.push(file);
        bytes += size;
        taken++;
      }
      if (taken > 0) sources.push(`${label} (${taken})`);
    };
    const corpusFiles = listFiles(
      path.join(corpus, language),
      (file) => file.endsWith('.txt') && languageForPath(file.replace(/\.txt$/, '')) === language,
    );
    take(corpusFiles, 'labelled corpus');
    if (language === 'python' && stdlib) take(pythonStdlibSlice(stdlib), `python stdlib slice ${stdlib}`);
    for (const directory of roots[language] ?? []) {
      if (bytes >= bytesPerLanguage || !fs.existsSync(directory)) continue;
      const accept = (file: string) =>
        languageForPath(file) === language && (language !== 'typescript' || isTypeScriptSource(file)) && !/\.min\.js$/.test(file);
      take(
        listFiles(directory, accept, 4000, (name) => name === 'node_modules' || name.startsWith('.')),
        directory,
      );
    }
    result.push({ language, files, sources });
  }
  return result;
}

// ---- parse throughput ------------------------------------------------------------------------

export interface ParseBenchOptions extends Partial<GrammarPaths> {
  /** Repository root (node_modules, labelled corpus); found from this file when omitted. */
  root?: string;
  /** Byte budget of real files per language (default 1.5 MB). */
  bytesPerLanguage?: number;
  log?: (line: string) => void;
}

interface LanguageFigures {
  files: number;
  bytes: number;
  parseMs: number;
  mbPerSecond: number;
  filesPerSecond: number;
  declarations: number;
  chunks: number;
  parsers: Record<string, number>;
  fallbackReasons: Record<string, number>;
  sources: string[];
  /** Set when too few bytes were found for the rate to mean much. */
  note?: string;
}

const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;
const megabytes = (bytes: number): number => bytes / (1024 * 1024);

/**
 * Parse+chunk throughput per language through `createStructuralParsers` + `ParserChain` (the
 * same chain the engine uses, with sync.ts's time bounds). Reading files is not timed; the first
 * parse of each language (lazy grammar load) is timed separately and not counted.
 */
export async function runParseBench(options: ParseBenchOptions = {}): Promise<Record<string, unknown>> {
  const log = options.log ?? ((line: string) => console.log(line));
  const root = options.root ?? findRepositoryRoot();
  const defaults = defaultGrammarPaths(root);
  const grammarDirectory = options.grammarDirectory ?? defaults.grammarDirectory;
  const queryDirectory = options.queryDirectory ?? defaults.queryDirectory;
  const bytesPerLanguage = options.bytesPerLanguage ?? 1_500_000;
  const chain = new ParserChain(createStructuralParsers({ grammarDirectory, queryDirectory }));
  const byLanguage: Record<string, LanguageFigures | { files: 0; note: string }> = {};
  const grammarLoadMs: Record<string, number> = {};
  let totalBytes = 0;
  let totalFiles = 0;
  let totalMs = 0;
  log(
    `parse bench: parse+chunk through the parser chain (grammars ${grammarDirectory}, queries ${queryDirectory}), up to ${megabytes(bytesPerLanguage).toFixed(2)} MB of real files per language`,
  );
  try {
    for (const { language, files, sources } of await collectRealFiles(root, bytesPerLanguage)) {
      if (files.length === 0) {
        byLanguage[language] = { files: 0, note: 'no real files found on this machine' };
        log(`  ${language.padEnd(10)} no real files found on this machine`);
        continue;
      }
      const warm = performance.now();
      await chain.parse({ path: `warm-up.${language}`, language, text: 'x', lines: ['x'] }, syncParseOptions(1));
      grammarLoadMs[language] = round(performance.now() - warm, 1);
      const figures: LanguageFigures = {
        files: 0,
        bytes: 0,
        parseMs: 0,
        mbPerSecond: 0,
        filesPerSecond: 0,
        declarations: 0,
        chunks: 0,
        parsers: {},
        fallbackReasons: {},
        sources,
      };
      for (const file of files) {
        const source = readSource(file);
        const relative = path.basename(file).replace(/\.txt$/, '');
        const started = performance.now();
        const result = await parseWithChain(chain, relative, language, source.text, source.lines);
        figures.parseMs += performance.now() - started;
        figures.files++;
        figures.bytes += source.bytes;
        figures.chunks += result.chunks.length;
        figures.declarations += new Set(
          result.chunks.flatMap((chunk) => (chunk.symbol ? [`${chunk.symbol.qualifiedName}@${chunk.symbol.startLine}`] : [])),
        ).size;
        figures.parsers[result.parser] = (figures.parsers[result.parser] ?? 0) + 1;
        if (result.fallbackReason)
          figures.fallbackReasons[result.fallbackReason] = (figures.fallbackReasons[result.fallbackReason] ?? 0) + 1;
      }
      figures.mbPerSecond = round(megabytes(figures.bytes) / (figures.parseMs / 1000));
      figures.filesPerSecond = round(figures.files / (figures.parseMs / 1000), 1);
      figures.parseMs = round(figures.parseMs, 1);
      if (figures.bytes < 50_000) figures.note = 'under 50 KB of real files: the rate is indicative only';
      totalBytes += figures.bytes;
      totalFiles += figures.files;
      totalMs += figures.parseMs;
      byLanguage[language] = figures;
      const parsers = Object.entries(figures.parsers)
        .map(([kind, count]) => `${kind} ${count}`)
        .join(', ');
      log(
        `  ${language.padEnd(10)} ${String(figures.files).padStart(4)} files ${megabytes(figures.bytes).toFixed(2).padStart(6)} MB  ${figures.mbPerSecond.toFixed(2).padStart(6)} MB/s ${figures.filesPerSecond.toFixed(1).padStart(7)} files/s  ${figures.declarations} declarations  [${parsers}]  grammar load ${grammarLoadMs[language]} ms  from ${sources.join('; ')}${figures.note ? `  (${figures.note})` : ''}`,
      );
    }
  } finally {
    chain.dispose();
  }
  const overall = {
    files: totalFiles,
    bytes: totalBytes,
    parseMs: round(totalMs, 1),
    mbPerSecond: round(megabytes(totalBytes) / (totalMs / 1000)),
    filesPerSecond: round(totalFiles / (totalMs / 1000), 1),
  };
  log(
    `  ${'all'.padEnd(10)} ${String(totalFiles).padStart(4)} files ${megabytes(totalBytes).toFixed(2).padStart(6)} MB  ${overall.mbPerSecond.toFixed(2).padStart(6)} MB/s ${overall.filesPerSecond.toFixed(1).padStart(7)} files/s`,
  );
  return { parseChunk: { byLanguage, overall, grammarLoadMs, bytesPerLanguage, grammarDirectory, queryDirectory } };
}

// ---- generated project for the worker lag figures --------------------------------------------

/** A small deterministic generator (no dependency on the bench corpus generators). */
class Lcg {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }
  next(): number {
    this.state = (Math.imul(this.state, 1664525) + 1013904223) >>> 0;
    return this.state / 2 ** 32;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

const words = [
  'account',
  'buffer',
  'cache',
  'cookie',
  'digest',
  'event',
  'header',
  'index',
  'ledger',
  'message',
  'order',
  'payload',
  'queue',
  'record',
  'session',
  'token',
  'upload',
  'vector',
  'window',
  'zone',
];
const verbs = ['build', 'check', 'load', 'merge', 'parse', 'read', 'render', 'resolve', 'send', 'store', 'update', 'validate'];
const pascal = (parts: string[]) => parts.map((part) => part[0].toUpperCase() + part.slice(1)).join('');
const camel = (parts: string[]) => parts[0] + pascal(parts.slice(1));

function typeScriptFile(rng: Lcg, index: number): string {
  const noun = rng.pick(words);
  const lines = [
    `import { ${pascal([rng.pick(words), 'options'])} } from './shared';`,
    '',
    `/** Handles ${noun} ${index}. */`,
    `export interface ${pascal([noun, 'shape', String(index)])} {`,
    '  id: string;',
    '  size: number;',
    '}',
    '',
  ];
  for (let c = 0; c < rng.int(1, 3); c++) {
    lines.push(
      `export class ${pascal([noun, rng.pick(words), String(index), String(c)])} {`,
      '  private readonly items = new Map<string, number>();',
      '  constructor(private readonly limit: number) {}',
    );
    for (let m = 0; m < rng.int(2, 6); m++) {
      const verb = rng.pick(verbs);
      lines.push(
        `  ${camel([verb, rng.pick(words)])}${m}(input: string): number {`,
        `    const value = input.length + this.limit * ${m};`,
        `    if (value > ${rng.int(5, 500)}) this.items.set(input, value);`,
        `    return this.items.get(input) ?? ${rng.int(0, 9)};`,
        '  }',
      );
    }
    lines.push('}', '');
  }
  for (let f = 0; f < rng.int(1, 4); f++) {
    lines.push(
      `export const ${camel([rng.pick(verbs), noun, String(f)])} = (text: string): string[] => text.split('${rng.pick(words)}').filter(Boolean);`,
      '',
    );
  }
  return lines.join('\n');
}

function pythonFile(rng: Lcg, index: number): string {
  const noun = rng.pick(words);
  const lines = ['import os', `from .shared import ${rng.pick(words)}_options`, '', ''];
  for (let c = 0; c < rng.int(1, 3); c++) {
    lines.push(
      `class ${pascal([noun, rng.pick(words), String(index), String(c)])}:`,
      `    """Keeps ${noun} records."""`,
      '',
      '    def __init__(self, limit):',
      '        self.limit = limit',
      '        self.items = {}',
      '',
    );
    for (let m = 0; m < rng.int(2, 6); m++) {
      lines.push(
        `    def ${rng.pick(verbs)}_${rng.pick(words)}_${m}(self, value):`,
        `        total = len(value) + self.limit * ${m}`,
        `        if total > ${rng.int(5, 500)}:`,
        '            self.items[value] = total',
        '        return self.items.get(value, 0)',
        '',
      );
    }
    lines.push('');
  }
  for (let f = 0; f < rng.int(1, 4); f++) {
    lines.push(
      `def ${rng.pick(verbs)}_${noun}_{f}(path):`.replace('{f}', String(f)),
      `    return os.path.join(path, "${rng.pick(words)}")`,
      '',
      '',
    );
  }
  return lines.join('\n');
}

function goFile(rng: Lcg, index: number): string {
  const noun = rng.pick(words);
  const lines = [`package pkg${index % 50}`, '', 'import (', '\t"fmt"', '\t"strings"', ')', ''];
  for (let c = 0; c < rng.int(1, 3); c++) {
    const type = pascal([noun, rng.pick(words), String(index), String(c)]);
    lines.push(`// ${type} keeps ${noun} records.`, `type ${type} struct {`, '\tlimit int', '\titems map[string]int', '}', '');
    for (let m = 0; m < rng.int(2, 5); m++) {
      lines.push(
        `func (s *${type}) ${pascal([rng.pick(verbs), rng.pick(words)])}${m}(input string) int {`,
        `\tvalue := len(input) + s.limit*${m}`,
        `\tif value > ${rng.int(5, 500)} {`,
        '\t\ts.items[input] = value',
        '\t}',
        '\treturn s.items[input]',
        '}',
        '',
      );
    }
  }
  lines.push(
    `func Describe${pascal([noun])}${index}(parts []string) string {`,
    '\treturn fmt.Sprintf("%d", len(strings.Join(parts, ",")))',
    '}',
    '',
  );
  return lines.join('\n');
}

export interface GeneratedProject {
  files: number;
  bytes: number;
  byLanguage: Record<string, number>;
}

/** Writes a deterministic project of `files` files, a third each TypeScript, Python and Go. */
export function generateLagProject(directory: string, files: number, seed = 20240603): GeneratedProject {
  const rng = new Lcg(seed);
  const byLanguage: Record<string, number> = { typescript: 0, python: 0, go: 0 };
  let bytes = 0;
  for (let index = 0; index < files; index++) {
    const folder = path.join(directory, `module${String(index % 40).padStart(2, '0')}`, `part${index % 7}`);
    fs.mkdirSync(folder, { recursive: true });
    const kind = index % 3;
    const [language, name, text] =
      kind === 0
        ? ['typescript', `${rng.pick(words)}${index}.ts`, typeScriptFile(rng, index)]
        : kind === 1
          ? ['python', `${rng.pick(words)}_${index}.py`, pythonFile(rng, index)]
          : ['go', `${rng.pick(words)}${index}.go`, goFile(rng, index)];
    fs.writeFileSync(path.join(folder, name), text);
    byLanguage[language]++;
    bytes += Buffer.byteLength(text);
  }
  return { files, bytes, byLanguage };
}

// ---- worker lag -----------------------------------------------------------------------------

/** Sampling interval of the event-loop delay monitor. */
const lagResolutionMs = 10;

export interface LagFigures {
  /** Event-loop delay beyond the sampling interval, in ms (0 on an idle loop). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  samples: number;
}

export interface WorkerLagResult {
  files: number;
  bytes: number;
  syncMs: number;
  filesPerSecond: number;
  mbPerSecond: number;
  indexedFiles: number;
  symbols: number;
  /** Errors the sync report lists (unreadable files and the like). */
  syncErrors: number;
  progressEvents: number;
  parserCoverage: Array<{ language: string; parser: string; reason: string | null; files: number }>;
  /** The calling thread's event-loop lag during the sync. */
  lag: LagFigures;
  /** The same thread's lag while idle just before the sync: what the machine's own load costs. */
  baseline: LagFigures;
  resolutionMs: number;
}

/**
 * `monitorEventLoopDelay` records the whole interval between its timer's runs, so an idle loop
 * reads about one resolution; the lag is what exceeds it.
 */
function lagFigures(histogram: IntervalHistogram): LagFigures {
  const beyond = (nanoseconds: number) => round(Math.max(0, nanoseconds / 1e6 - lagResolutionMs));
  return {
    p50Ms: beyond(histogram.percentile(50)),
    p99Ms: beyond(histogram.percentile(99)),
    maxMs: beyond(histogram.max),
    samples: histogram.count,
  };
}

async function idleLag(durationMs: number): Promise<LagFigures> {
  const histogram = monitorEventLoopDelay({ resolution: lagResolutionMs });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  histogram.disable();
  return lagFigures(histogram);
}

/**
 * Opens `root` in an engine worker, runs one full sync and measures this thread's event-loop
 * delay meanwhile, after measuring it idle for `baselineMs`. The database stays in memory.
 */
export async function measureWorkerSync(
  workerScript: string,
  root: string,
  options: { onProgress?: (progress: SyncProgress) => void; baselineMs?: number } = {},
): Promise<Omit<WorkerLagResult, 'files' | 'bytes' | 'mbPerSecond'>> {
  let progressEvents = 0;
  const client = new EngineClient(workerScript, {
    onProgress: (_key, progress) => {
      progressEvents++;
      options.onProgress?.(progress);
    },
  });
  const projectKey = 'worker-lag';
  try {
    await client.request('open', { projectKey, root, options: { useGit: false } });
    const baseline = await idleLag(options.baselineMs ?? 2000);
    const histogram = monitorEventLoopDelay({ resolution: lagResolutionMs });
    histogram.enable();
    const started = performance.now();
    const { report } = await client.request('sync', { projectKey, full: true, persist: true });
    if (!report) throw new Error('a full sync always runs discovery and reports');
    const syncMs = performance.now() - started;
    histogram.disable();
    const health = await client.request('health', { projectKey });
    await client.request('close', { projectKey });
    return {
      syncMs: round(syncMs, 1),
      filesPerSecond: round(health.files / (syncMs / 1000), 1),
      indexedFiles: health.files,
      symbols: health.symbols,
      syncErrors: report.errors.length,
      progressEvents,
      parserCoverage: health.parserCoverage,
      lag: lagFigures(histogram),
      baseline,
      resolutionMs: lagResolutionMs,
    };
  } finally {
    await client.dispose();
  }
}

/** The bundled worker: next to this bundle (dist/bench.js), else dist/worker.js in the repository. */
export function defaultWorkerScript(root: string = findRepositoryRoot()): string {
  const beside = path.join(__dirname, 'worker.js');
  return fs.existsSync(beside) && fs.existsSync(path.join(__dirname, 'grammars')) ? beside : path.join(root, 'dist', 'worker.js');
}

export function formatLag(lag: LagFigures): string {
  return `p50 ${lag.p50Ms} ms, p99 ${lag.p99Ms} ms, max ${lag.maxMs} ms (${lag.samples} samples)`;
}

/**
 * The worker-lag figure of issue 3 item 6: a generated project of `files` files (a third each
 * TypeScript, Python and Go) indexed by the bundled engine worker while this thread measures
 * its own event-loop delay. Returns the lag percentiles in ms and the sync throughput.
 */
export async function runWorkerLagBench(
  files: number,
  options: { workerScript?: string; log?: (line: string) => void } = {},
): Promise<Record<string, unknown>> {
  const log = options.log ?? ((line: string) => console.log(line));
  const workerScript = options.workerScript ?? defaultWorkerScript();
  if (!fs.existsSync(workerScript)) {
    log(`worker lag: skipped, ${workerScript} is missing (run node esbuild.mjs first)`);
    return { workerLag: { skipped: `${workerScript} is missing` } };
  }
  const directory = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pk-lag-')));
  try {
    const project = generateLagProject(directory, files);
    const measured = await measureWorkerSync(workerScript, directory);
    const result: WorkerLagResult = {
      files: project.files,
      bytes: project.bytes,
      ...measured,
      mbPerSecond: round(megabytes(project.bytes) / (measured.syncMs / 1000)),
    };
    const coverage = result.parserCoverage.map((entry) => `${entry.language}/${entry.parser} ${entry.files}`).join(', ');
    log(
      `worker lag: ${files} generated files (${megabytes(project.bytes).toFixed(1)} MB) indexed by ${path.basename(workerScript)} in ${(result.syncMs / 1000).toFixed(2)} s (${result.filesPerSecond} files/s, ${result.mbPerSecond} MB/s; ${result.indexedFiles} files, ${result.symbols} symbols; ${coverage})`,
    );
    log(
      `worker lag: calling thread event-loop lag during the sync ${formatLag(result.lag)}; idle just before ${formatLag(result.baseline)} (goal: under 50 ms)`,
    );
    return { workerLag: result };
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
