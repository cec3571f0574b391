import type { Health } from '../health';
import type { IndexBounds, EngineOptions } from '../options';
import type { PortCounters } from '../ports';
import type { Retrieval, RetrieveOptions } from '../retrieval/retrieve';
import type { SymbolRow } from '../store';
import type { SyncProgress } from '../sync';
import type { ContextBlocks, ReadSnippet, SyncOutcome, TreeFile, TreeItem } from '../engine';
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
  /** The one sync: the engine decides between re-indexing `paths` alone and discovery (`ProjectEngine.syncChanges`). */
  sync: { params: { projectKey: string; paths?: string[]; full?: boolean; persist: boolean }; result: SyncOutcome };
  cancel: { params: { projectKey: string }; result: null };
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
  /** One directory of the tree view: its subdirectories and files, never the whole list. */
  directory: { params: { projectKey: string; path: string }; result: TreeDirectory };
  fileItems: { params: { projectKey: string; path: string }; result: TreeItem[] };
  close: { params: { projectKey: string }; result: null };
  counters: { params: Record<string, never>; result: PortCounters & { engineOpens: number } };
}

export type RequestName = keyof RequestMap;

// The tree view's file and item shapes are the engine's answers; named here too for the extension's imports.
export type { TreeFile, TreeItem } from '../engine';

/** The direct children of one indexed directory (`''` is the root), each sorted by path. */
export interface TreeDirectory {
  directories: string[];
  files: TreeFile[];
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
