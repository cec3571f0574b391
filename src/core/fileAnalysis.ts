/**
 * What turning one file's bytes into rows takes and gives (`analyzeFile` in sync.ts), and the
 * analyzer that runs it off the engine's thread (the parse pool). A module of its own so that the
 * sync context can name the analyzer without importing sync.
 */
import type { ExclusionReason } from './exclusion/reasons';
import type { EngineOptions } from './options';
import type { ParserChain } from './parsing/parserChain';
import type { NewSnippet, SymbolRow } from './tables/fileChange';

/** The rows one file's text became, and which parser made them. */
export interface FileRows {
  snippets: NewSnippet[];
  /** The snippets' distinct words and identifier parts, packed once per file (`packFileTerms`, in `snippets` order). */
  terms: Uint8Array;
  symbols: SymbolRow[];
  parser: string;
  parserReason: string | null;
  parserVersion: string;
}

/** The parts of a sync context that turning bytes into rows needs: a parse worker has them too. */
export interface AnalysisContext {
  projectId: string;
  options: EngineOptions;
  parsers: ParserChain;
  warn(message: string): void;
}

/** What one file's bytes became: left out, the content the index already holds, or the rows to write. */
export type FileAnalysis =
  | { kind: 'excluded'; reason: ExclusionReason; detail?: string }
  | { kind: 'same'; sha256: string }
  | { kind: 'rows'; sha256: string; language: string; rows: FileRows };

/**
 * Runs `analyzeFile` elsewhere (worker threads). It resolves `undefined` instead of failing (a
 * crashed worker, a version mismatch), and the caller then analyzes the file inline.
 */
export interface FileAnalyzer {
  /** Files the analyzer works on at once; syncs with fewer files to read than `minFiles` stay inline. */
  readonly size: number;
  readonly minFiles: number;
  /** Files analyzed off this thread so far (the bench prints it; tests check the pool was used). */
  readonly analyzed: number;
  analyze(relativePath: string, bytes: Uint8Array, knownHash: string | undefined, force: boolean): Promise<FileAnalysis | undefined>;
  /** Takes back a file not yet started elsewhere, so the caller analyzes it now instead of waiting (see `ParsePool.reclaim`). */
  reclaim(relativePath: string): boolean;
  /** Stops the analyzer's threads if they are idle; the next `analyze` starts them again (see `ParsePool.release`). */
  release?(): void;
  dispose?(): void;
}
