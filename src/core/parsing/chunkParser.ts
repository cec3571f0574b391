/**
 * The contract between the index and anything that turns a file's text into chunks.
 * Parsers are tried in order (a `ChunkParserChain`); the first that returns a result wins and
 * text windows are the last resort, so a parser may always decline by returning `undefined`.
 */

/** How a chunk was produced; health counts files by the parser that produced them. */
export type ParserKind = 'tree-sitter' | 'regex' | 'text';

/** Declaration kinds shared by every structural parser. */
export type SymbolKind =
  | 'class'
  | 'interface'
  | 'type'
  | 'enum'
  | 'function'
  | 'method'
  | 'constructor'
  | 'accessor'
  | 'property'
  | 'struct'
  | 'trait'
  | 'impl'
  | 'module'
  | 'namespace'
  | 'constant';

export interface ChunkSymbol {
  name: string;
  /** Dotted qualified name, e.g. `Outer.Inner.method`, Go `Recv.Method`, Rust `Type.method`. */
  qualifiedName: string;
  kind: SymbolKind;
  /** One line, whitespace collapsed. */
  signature: string;
  /** Qualified name of the enclosing declaration, if any. */
  parent?: string;
  /** 1-based line of the declaration keyword (after decorators and doc comments). */
  startLine: number;
  /** 1-based inclusive last line of the whole declaration. */
  endLine: number;
}

export interface ParsedChunk {
  /** 1-based inclusive line range of the chunk text (may start at decorators/doc comments). */
  startLine: number;
  endLine: number;
  /** `window` for text windows, `declaration` for a whole declaration, `part` for one bounded piece of a large one. */
  chunkKind: 'window' | 'declaration' | 'part';
  /** Present when the chunk belongs to a declaration; every part of one declaration shares it. */
  symbol?: ChunkSymbol;
  /** Identifiers referenced inside the chunk (deduplicated, bounded). */
  references?: string[];
}

export interface ParseInput {
  /** Project-relative POSIX path. */
  path: string;
  /** Language id from `languageForPath`, e.g. `typescript`, `python`, `text`. */
  language: string;
  /** Decoded text without a byte-order mark. */
  text: string;
  /** `text` split into lines exactly as the editor numbers them (\r\n, \r and \n all end a line). */
  lines: string[];
}

export interface ParseOptions {
  /** Text window size in lines (default 80). */
  windowLines: number;
  /** Overlap between consecutive windows in lines (default 12). */
  overlapLines: number;
  /** Abandon a parse after this many milliseconds and let the next parser try. */
  timeoutMs: number;
}

export interface ParseResult {
  parser: ParserKind;
  chunks: ParsedChunk[];
  /** Imports of the whole file (module specifiers or names), bounded. */
  imports?: string[];
  /** Why an earlier parser in the chain declined, for health (e.g. `grammar-missing`, `timeout`). */
  fallbackReason?: string;
}

/**
 * How another thread builds the same parser again (plain data, so it crosses `postMessage`). Only a
 * chain whose every parser has one can parse in the pool's worker threads.
 */
export type ParserRecipe = { kind: 'tree-sitter'; grammarDir: string; queryDir: string; runtimeWasm?: string } | { kind: 'regex' };

export interface ChunkParser {
  readonly kind: ParserKind;
  /** How a worker thread builds this parser; absent for parsers only this thread has (tests inject some). */
  readonly recipe?: ParserRecipe;
  /** Bumped whenever this parser's output for the same input can change; part of chunk identity. */
  readonly version: string;
  supports(language: string): boolean;
  /** Resolve `undefined` to decline (unsupported, no declarations, failure, timeout). Never throw on bad input. */
  parse(input: ParseInput, options: ParseOptions): Promise<ParseResult | undefined>;
  /** Why the last `parse` call declined, if it did (used for health counts). */
  lastDeclineReason?(): string | undefined;
  /** The grammar a supported language is parsed with, where languages share one (C with C++'s). */
  grammarOf?(language: string): string | undefined;
  dispose?(): void;
}
