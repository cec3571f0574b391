import type { Health } from '../health';
import type { IndexBounds, EngineOptions } from '../options';
import type { PortCounters } from '../ports';
import type { Retrieval, RetrieveOptions } from '../retrieval/retrieve';
import type { SymbolRow } from '../store';
import type { SyncProgress, SyncReport } from '../sync';
import type { ContextBlocks, ReadSnippet } from '../engine';
import type { ReferencesInput, ReferencesResult } from '../navigation/references';
import type { FindSymbolInput, FindSymbolResult, OutlineInput, OutlineResult } from '../navigation/symbols';
import type { ToolAnswer, ToolName } from '../tools/toolSet';
import type { CurationOp, CurationOps, CurationRequest } from '../curation/requests';
import type { RankingMode } from '../curation/ranker';

/** Messages between an engine client and the worker thread that owns the engines. */
export type EngineOptionsInput = Partial<Omit<EngineOptions, 'bounds'>> & { bounds?: Partial<IndexBounds> };

export interface RequestMap {
  open: {
    params: { projectKey: string; root: string; dbPath?: string; options?: EngineOptionsInput; rankingMode?: RankingMode };
    result: { root: string; loadedFromDisk: boolean; openNote?: string };
  };
  sync: { params: { projectKey: string; full?: boolean }; result: SyncReport };
  cancel: { params: { projectKey: string }; result: null };
  /** `report` is null when the edited files were re-indexed alone, without the incremental sync. The database is not written: the caller syncs again. */
  syncPaths: { params: { projectKey: string; paths: string[] }; result: { changed: number; report: SyncReport | null } };
  search: { params: { projectKey: string; query: string; options?: RetrieveOptions }; result: Retrieval };
  context: { params: { projectKey: string; query: string; options?: RetrieveOptions }; result: ContextBlocks };
  symbols: { params: { projectKey: string }; result: SymbolRow[] };
  health: { params: { projectKey: string }; result: Health };
  get: {
    params: { projectKey: string; citation: string };
    result: { path: string; startLine: number; endLine: number; sha256: string; text: string };
  };
  findSymbol: { params: { projectKey: string; input: FindSymbolInput }; result: FindSymbolResult };
  references: { params: { projectKey: string; input: ReferencesInput }; result: ReferencesResult };
  outline: { params: { projectKey: string; input: OutlineInput }; result: OutlineResult };
  read: { params: { projectKey: string; citation: string }; result: ReadSnippet };
  /** One agent tool, its raw input checked in the worker (the same `runTool` as `pk mcp`). */
  tool: { params: { projectKey: string; name: ToolName; input: unknown }; result: ToolAnswer };
  /** Pins, memory, labels and the ranker (`curation/requests.ts`); the result is that request's `CurationOps` result. */
  curate: { params: { projectKey: string; request: CurationRequest }; result: CurationOps[CurationOp]['result'] };
  files: { params: { projectKey: string }; result: TreeFile[] };
  fileItems: { params: { projectKey: string; path: string }; result: TreeItem[] };
  close: { params: { projectKey: string }; result: null };
  counters: { params: Record<string, never>; result: PortCounters & { engineOpens: number } };
}

export type RequestName = keyof RequestMap;

/** One indexed file of the tree view. */
export interface TreeFile {
  path: string;
  language: string;
  modified: boolean;
  parser: string;
  sha256: string;
}

/** A declaration or snippet of one file (never its source text). */
export interface TreeItem {
  id: string;
  label: string;
  kind: string;
  startLine: number;
  endLine: number;
  sha256: string;
}

export interface RequestMessage<N extends RequestName = RequestName> {
  type: 'request';
  id: number;
  name: N;
  params: RequestMap[N]['params'];
}

export type WorkerMessage =
  | { type: 'response'; id: number; ok: true; result: unknown }
  | { type: 'response'; id: number; ok: false; error: { message: string; name: string } }
  | { type: 'progress'; projectKey: string; progress: SyncProgress }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string };
