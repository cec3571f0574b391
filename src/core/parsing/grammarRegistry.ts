import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
// An import-equals keeps bundlers on the CommonJS entry; the ES module one needs `import.meta`.
import TreeSitter = require('web-tree-sitter');
import type { Language, Query } from 'web-tree-sitter';

/** One language in `grammars/manifest.json`: which grammar it parses with and which tag query it runs. */
export interface GrammarManifestEntry {
  grammar: string;
  query: string;
  extensions: string[];
}

export interface GrammarLocations {
  /** Folder holding `tree-sitter-<lang>.wasm` files (dist/grammars at runtime). */
  grammarDir: string;
  /** The repository's `grammars/` folder: `manifest.json` and the `.scm` tag queries. */
  queryDir: string;
  /**
   * Path of `web-tree-sitter.wasm`. Without it the runtime looks beside its own script: the
   * installed package, or `dist/` when bundled (the build copies the file there).
   */
  runtimeWasm?: string;
  log?: (message: string) => void;
}

export interface LoadedGrammar {
  language: Language;
  query: Query;
}

/** Either a ready grammar or the health reason it could not be used. */
export type GrammarLoad = { grammar: LoadedGrammar; declineReason?: undefined } | { grammar?: undefined; declineReason: string };

/**
 * The runtime is one Emscripten module per process, so its initialisation is shared by every
 * registry; a failed attempt is forgotten so a later registry with a better path can retry.
 */
let runtimeReady: Promise<void> | undefined;
/** The options object the runtime was started with: Emscripten makes it the module and keeps its memory views on it. */
let runtimeModule: Partial<EmscriptenModule> | undefined;

/**
 * Bytes of this thread's tree-sitter WebAssembly memory (0 before the runtime starts). It grows
 * to hold the largest tree parsed so far and never shrinks, so the parse pool replaces a worker
 * whose memory grew past a bound (see `ParsePoolOptions.recycleHeapBytes`).
 */
export function treeSitterHeapBytes(): number {
  return runtimeModule?.HEAP8?.buffer.byteLength ?? 0;
}

function initRuntime(runtimeWasm: string | undefined): Promise<void> {
  if (!runtimeReady) {
    const moduleOptions: Partial<EmscriptenModule> = runtimeWasm
      ? { locateFile: (file: string, directory: string) => (file.endsWith('.wasm') ? runtimeWasm : directory + file) }
      : {};
    runtimeModule = moduleOptions;
    runtimeReady = TreeSitter.Parser.init(moduleOptions).catch((error: unknown) => {
      runtimeReady = undefined;
      runtimeModule = undefined;
      throw error;
    });
  }
  return runtimeReady;
}

/**
 * Loads the web-tree-sitter runtime, grammars and tag queries lazily, once per language, and
 * turns every failure into a decline reason instead of an exception.
 */
export class GrammarRegistry {
  readonly manifest: Readonly<Record<string, GrammarManifestEntry>>;
  /** Changes whenever the manifest or a query changes, so chunk identity follows query edits. */
  readonly contentHash: string;
  private readonly loads = new Map<string, Promise<GrammarLoad>>();
  private readonly runtimeWasm: string | undefined;
  private readonly log: (message: string) => void;

  constructor(private readonly locations: GrammarLocations) {
    this.log = locations.log ?? (() => undefined);
    this.runtimeWasm = locations.runtimeWasm;
    const { manifest, hash } = readManifest(locations.queryDir, this.log);
    this.manifest = manifest;
    this.contentHash = hash;
  }

  load(language: string): Promise<GrammarLoad> {
    const key = this.keyFor(language);
    let load = this.loads.get(key);
    if (!load) {
      load = this.loadOnce(language);
      this.loads.set(key, load);
    }
    return load;
  }

  /** Marks a language unusable after it failed at parse time (e.g. an incompatible ABI). */
  markFailed(language: string, reason: string): void {
    this.loads.set(this.keyFor(language), Promise.resolve({ declineReason: reason }));
  }

  /** C and C++ share one grammar and query, so they share one load. */
  private keyFor(language: string): string {
    const entry = this.manifest[language];
    return entry ? `${entry.grammar}\n${entry.query}` : language;
  }

  dispose(): void {
    for (const load of this.loads.values()) {
      void load.then((result) => result.grammar?.query.delete());
    }
    this.loads.clear();
  }

  private async loadOnce(language: string): Promise<GrammarLoad> {
    const entry = this.manifest[language];
    if (!entry) return { declineReason: 'grammar-missing' };
    const grammarPath = path.join(this.locations.grammarDir, entry.grammar);
    if (!fs.existsSync(grammarPath)) {
      this.log(`tree-sitter: grammar for ${language} not found at ${grammarPath}`);
      return { declineReason: 'grammar-missing' };
    }
    if (this.runtimeWasm !== undefined && !fs.existsSync(this.runtimeWasm)) {
      this.log(`tree-sitter: runtime not found at ${this.runtimeWasm}`);
      return { declineReason: 'runtime-missing' };
    }
    try {
      await initRuntime(this.runtimeWasm);
    } catch (error) {
      this.log(`tree-sitter: runtime failed to start: ${describe(error)}`);
      return { declineReason: 'runtime-failed' };
    }
    let grammar: Language;
    try {
      grammar = await TreeSitter.Language.load(grammarPath);
    } catch (error) {
      this.log(`tree-sitter: grammar for ${language} failed to load: ${describe(error)}`);
      return { declineReason: 'grammar-failed' };
    }
    let source: string;
    try {
      source = fs.readFileSync(path.join(this.locations.queryDir, entry.query), 'utf8');
    } catch (error) {
      this.log(`tree-sitter: query for ${language} not readable: ${describe(error)}`);
      return { declineReason: 'query-missing' };
    }
    let query: Query;
    try {
      query = new TreeSitter.Query(grammar, source);
    } catch (error) {
      this.log(`tree-sitter: query for ${language} does not compile: ${describe(error)}`);
      return { declineReason: 'query-failed' };
    }
    try {
      warmUp(grammar, query);
    } catch (error) {
      query.delete();
      this.log(`tree-sitter: grammar for ${language} cannot parse: ${describe(error)}`);
      return { declineReason: 'grammar-failed' };
    }
    return { grammar: { language: grammar, query } };
  }
}

/**
 * V8 compiles wasm functions on first call, which can cost a new grammar's first file more
 * than its whole time bound; one tiny parse and query run here pays that cost up front and
 * also proves the grammar's ABI is one the runtime accepts.
 */
function warmUp(grammar: Language, query: Query): void {
  const parser = new TreeSitter.Parser();
  try {
    parser.setLanguage(grammar);
    const tree = parser.parse('a = 1\nfunction f() { return "s" } // c\n');
    if (tree) {
      query.matches(tree.rootNode);
      tree.delete();
    }
  } finally {
    parser.delete();
  }
}

function readManifest(queryDir: string, log: (message: string) => void): { manifest: Record<string, GrammarManifestEntry>; hash: string } {
  const hash = createHash('sha256');
  const manifest: Record<string, GrammarManifestEntry> = {};
  try {
    const raw = fs.readFileSync(path.join(queryDir, 'manifest.json'), 'utf8');
    hash.update(raw);
    const languages = (JSON.parse(raw) as { languages?: Record<string, Partial<GrammarManifestEntry>> }).languages ?? {};
    for (const [language, entry] of Object.entries(languages)) {
      if (typeof entry.grammar !== 'string' || typeof entry.query !== 'string') continue;
      manifest[language] = {
        grammar: entry.grammar,
        query: entry.query,
        extensions: Array.isArray(entry.extensions) ? entry.extensions : [],
      };
    }
    for (const queryFile of [...new Set(Object.values(manifest).map((entry) => entry.query))].sort()) {
      try {
        hash.update(queryFile).update(fs.readFileSync(path.join(queryDir, queryFile)));
      } catch {
        // A missing query is reported when its language is first parsed.
      }
    }
  } catch (error) {
    log(`tree-sitter: grammar manifest unreadable in ${queryDir}: ${describe(error)}`);
  }
  return { manifest, hash: hash.digest('hex').slice(0, 12) };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
