import type { FileAnalyzer } from './fileAnalysis';
import type { EngineOptions } from './options';
import type { ParserChain } from './parsing/parserChain';
import type { EnginePorts } from './ports';
import type { Embedder } from './retrieval/embedder';
import type { IndexStore } from './store';

/**
 * What sync, retrieval, navigation and the vectors all work against: one project's root, options,
 * ports, store and parsers. A module of its own so that none of them imports another to name it.
 */
export interface SyncContext {
  root: string;
  projectId: string;
  options: EngineOptions;
  ports: EnginePorts;
  store: IndexStore;
  parsers: ParserChain;
  /** Hybrid mode's embedding function; the local feature hasher when absent (tests inject failing ones). */
  embedder?: Embedder;
  /** Analyzes files off this thread (the parse pool); absent, or declining a file, means inline. */
  analyzer?: FileAnalyzer;
  /**
   * Runs the requests that wait for a sync and may run between the steps of its full-text merge
   * (searches and lookups, see `ProjectEngine`); absent, the merge yields one turn of the event loop.
   */
  interleave?: () => Promise<void>;
}
