/**
 * The rows one file's change produces, as sync builds them, and the one list every part of the
 * index consumes: change detection decides what to compute or delete, the parts only apply it.
 */

export interface FileRow {
  path: string;
  sha256: string;
  bytes: number;
  mtimeMs: number;
  language: string;
  gitHead: string | null;
  tracked: boolean;
  modified: boolean;
  parser: string;
  parserReason: string | null;
  indexedAt: number;
}

export interface SnippetRow {
  rowid: number;
  id: string;
  path: string;
  fileHash: string;
  startLine: number;
  endLine: number;
  tokens: number;
  stale: boolean;
  chunkKind: string;
  parser: string;
  parserVersion: string;
  symbolId: string | null;
  name: string | null;
  kind: string | null;
  qualifiedName: string | null;
  signature: string | null;
  parent: string | null;
  symbolStart: number | null;
  symbolEnd: number | null;
  imports: string | null;
  refs: string | null;
}

/**
 * A chunk to insert. `indexText` is the chunk's source: it goes into the full-text index (for
 * positions and term frequencies) but is not stored; the distinct words FTS4 needs to delete the
 * row later are stored once per file (`FileRows.terms`). `identifierParts` (space separated) is
 * the full-text `idents` column.
 */
export type NewSnippet = Omit<SnippetRow, 'rowid' | 'stale'> & { indexText: string; identifierParts: string };

export interface SymbolRow {
  symbolId: string;
  path: string;
  name: string;
  qualifiedName: string;
  kind: string;
  startLine: number;
  endLine: number;
  signature: string | null;
  parent: string | null;
  fileHash: string;
}

/**
 * One file's change. `file` is the new file row (absent when the file goes). The composition
 * fills `retiredChunkIds` (the file's current chunks, before the change); the file part fills
 * `fileId` (a new file gets its id there) and the chunk part `chunkIds` (the new chunks' ids, in
 * `snippets` order), for the parts applied after them.
 */
export interface FileChange {
  path: string;
  fileId: number;
  /** False for a file the index did not hold before this change: no part has rows of it to replace. */
  known: boolean;
  file?: FileRow;
  snippets: NewSnippet[];
  /** The snippets' words for deleting them from the full-text index later (`packFileTerms`, in `snippets` order). */
  terms?: Uint8Array;
  symbols: SymbolRow[];
  retiredChunkIds: number[];
  chunkIds: number[];
}

/** A part of the index: it owns its tables and applies each file's change to them (inside the caller's transaction). */
export interface IndexPart {
  /** The table names this part creates and alone reads and writes. */
  readonly tables: readonly string[];
  replaceFile(change: FileChange): void;
  removeFile(change: FileChange): void;
}

/** The path ↔ id map of the indexed files, owned by the file part; the other parts store ids and name paths through it. */
export interface FileNames {
  idOf(path: string): number | undefined;
  /** Throws for an id no indexed file has (a part holding such an id is out of step with the files). */
  pathOf(id: number): string;
}
