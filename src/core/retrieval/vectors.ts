/**
 * Optional hybrid ranking (SPEC §8): local, deterministic feature-hashing embeddings — no
 * network, no model files — stored in `derived_embeddings`, a bounded cosine pool over them and
 * reciprocal-rank fusion with the lexical ranks.
 *
 * Each chunk becomes a 256-dimension signed feature-hashing vector of its identifier parts,
 * stemmed word unigrams and bigrams (plus its declared name and file name, weighted up),
 * L2-normalized and stored as a float32 scale followed by 256 int8 components. A vector is keyed
 * by source key (`path#Lstart-Lend`), source hash (the file's SHA-256), chunking version (the
 * parser chain version), provider, model and dimensions, so a file whose hash changes loses
 * exactly its own vectors (`IndexStore.replaceFile`) and nothing else is recomputed.
 *
 * Vectors are computed at index time from the chunk text sync already holds (`storeEmbeddings`,
 * called after a file's rows are replaced); chunks indexed while hybrid mode was off are filled
 * in once, lazily, from the live files (`backfillEmbeddings`, at the end of a sync with hybrid on
 * and before the first hybrid query), always checking the file's hash first.
 */
import { readIndexable } from '../liveFile';
import type { IndexStore, SnippetRow } from '../store';
import type { SyncContext } from '../syncContext';
import { lineOwners, ownText, splitLines } from '../tokens';
import { vectorKey } from '../tables/embeddingTable';
import { decodeVector, defaultEmbedder, encodeVector, type Embedder } from './embedder';
import { VectorMatrix } from './vectorMatrix';

export { queryCacheCapacity } from './vectorMatrix';

export {
  FeatureHashingEmbedder,
  decodeVector,
  defaultEmbedder,
  embeddingDimensions,
  embeddingTerms,
  encodeVector,
  type Embedder,
} from './embedder';

export function sourceKey(snippet: { path: string; startLine: number; endLine: number }): string {
  return `${snippet.path}#L${snippet.startLine}-L${snippet.endLine}`;
}

/** What a chunk's vector is computed from besides its body: its declared name and its file name. */
function titleOf(snippet: { path: string; qualifiedName: string | null }): string {
  const file = snippet.path.split('/').pop() ?? snippet.path;
  return `${snippet.qualifiedName ?? ''} ${file.replace(/\.[^.]+$/, '')}`;
}

/** What a chunk's vector is made from; `NewSnippet` fits. */
export interface EmbeddingSource {
  path: string;
  fileHash: string;
  startLine: number;
  endLine: number;
  parserVersion: string;
  qualifiedName: string | null;
  indexText: string;
}

/** Stores vectors for freshly indexed chunks (their text is at hand; nothing is read again). */
export function storeEmbeddings(store: IndexStore, snippets: ReadonlyArray<EmbeddingSource>, embedder: Embedder = defaultEmbedder): number {
  if (snippets.length === 0) return 0;
  // Two chunks over the same lines share one key; the first one's text is the one indexed.
  const seen = new Set<string>();
  const unique = snippets.filter((snippet) => !seen.has(sourceKey(snippet)) && seen.add(sourceKey(snippet)) !== undefined);
  store.embeddings.put(
    embedder,
    unique.map((snippet) => ({
      path: snippet.path,
      startLine: snippet.startLine,
      endLine: snippet.endLine,
      fileHash: snippet.fileHash,
      chunkingVersion: snippet.parserVersion,
      vector: encodeVector(embedder.embed(snippet.indexText, titleOf(snippet))),
    })),
  );
  return unique.length;
}

/** The embedder a project uses: the one injected into its context, else the local feature hasher. */
export function embedderOf(context: Pick<SyncContext, 'embedder'>): Embedder {
  return context.embedder ?? defaultEmbedder;
}

/**
 * Stores the vectors of chunks sync just indexed. A failure is logged and leaves those chunks
 * without vectors (hybrid ranking then simply has fewer to offer); indexing never fails for it.
 */
export function embedIndexedChunks(context: SyncContext, snippets: ReadonlyArray<EmbeddingSource>): void {
  try {
    storeEmbeddings(context.store, snippets, embedderOf(context));
  } catch (error) {
    context.ports.log.warn(
      `Vectors for ${snippets[0]?.path ?? 'a file'} were not stored: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * Computes the vectors current chunks lack (indexed while hybrid mode was off), reading each
 * such file once and only using it when its live hash still equals the indexed one.
 */
export async function backfillEmbeddings(context: SyncContext): Promise<number> {
  const embedder = embedderOf(context);
  const stored = context.store.embeddings.vectorKeys(embedder);
  const byFile = new Map<string, SnippetRow[]>();
  for (const chunk of context.store.chunks.allCurrentSnippets()) {
    if (stored.has(vectorKey(chunk))) continue;
    const list = byFile.get(chunk.path) ?? [];
    list.push(chunk);
    byFile.set(chunk.path, list);
  }
  let added = 0;
  for (const [relativePath, chunks] of byFile) {
    // Unusable, or changed since indexing: the next sync deals with it.
    const read = readIndexable(context, relativePath);
    if (read.kind !== 'read' || read.sha256 !== chunks[0].fileHash) continue;
    const lines = splitLines(read.text);
    const own = ownTexts(lines, context.store.chunks.currentSnippets(relativePath));
    added += storeEmbeddings(
      context.store,
      chunks.map((chunk) => ({
        path: relativePath,
        fileHash: chunk.fileHash,
        startLine: chunk.startLine,
        endLine: chunk.endLine,
        parserVersion: chunk.parserVersion,
        qualifiedName: chunk.qualifiedName,
        indexText: own.get(`${chunk.startLine}-${chunk.endLine}`) ?? '',
      })),
      embedder,
    );
  }
  return added;
}

/**
 * The text sync indexed for each chunk of a file: the lines no smaller chunk holds (a class its
 * header, each method its body), with the owners `buildRows` uses (`lineOwners`, rows in
 * insertion order), so vectors filled in later equal the ones computed at index time.
 */
export function ownTexts(
  lines: string[],
  rows: ReadonlyArray<Pick<SnippetRow, 'rowid' | 'startLine' | 'endLine' | 'symbolStart'>>,
): Map<string, string> {
  const ordered = [...rows].sort((a, b) => a.rowid - b.rowid);
  const owners = lineOwners(ordered, lines.length, (index) => ordered[index].symbolStart ?? 0);
  const texts = new Map<string, string>();
  ordered.forEach((row, index) => {
    const key = `${row.startLine}-${row.endLine}`;
    if (!texts.has(key)) texts.set(key, ownText(lines, owners, row, index));
  });
  return texts;
}

/** `backfillEmbeddings` for the end of a sync: failures are logged, never thrown. */
export async function fillMissingEmbeddings(context: SyncContext): Promise<void> {
  try {
    await backfillEmbeddings(context);
  } catch (error) {
    context.ports.log.warn(`Missing vectors were not computed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Every current chunk that has a vector of `embedder`'s model, by row id. */
function loadMatrix(store: IndexStore, embedder: Embedder): VectorMatrix {
  const vectors = store.embeddings.vectors(embedder);
  const chunks = store.chunks
    .allCurrentSnippets()
    .filter((chunk) => vectors.has(vectorKey(chunk)))
    .sort((a, b) => a.rowid - b.rowid);
  const count = chunks.length;
  const dimensions = embedder.dimensions;
  const rowids = new Int32Array(count);
  const scales = new Float32Array(count);
  const components = new Int8Array(count * dimensions);
  chunks.forEach((chunk, index) => {
    const { scale, components: vector } = decodeVector(vectors.get(vectorKey(chunk)) as Uint8Array, dimensions);
    rowids[index] = chunk.rowid;
    scales[index] = scale;
    for (let dimension = 0; dimension < dimensions; dimension++) components[dimension * count + index] = vector[dimension];
  });
  return new VectorMatrix(store.revision, rowids, scales, components, dimensions);
}

/** The query-vector cache size, for tests. */
export function cachedQueryVectors(store: IndexStore, embedder: Embedder = defaultEmbedder): number {
  return store.embeddings.vectorState(embedder).queries.size;
}

/**
 * The bounded cosine pool for `queryText`: the `limit` nearest chunks plus the lexical
 * candidates `alsoRowids` (so both lists are ranked on the same footing), best first. Fills in missing
 * vectors first when the store changed since the last look. Throws on any failure; the caller
 * falls back to the lexical ranking.
 */
export async function vectorPool(
  context: SyncContext,
  queryText: string,
  limit: number,
  alsoRowids: Iterable<number> = [],
): Promise<Array<{ rowid: number; cosine: number }>> {
  const embedder = embedderOf(context);
  const state = context.store.embeddings.vectorState(embedder);
  if (state.backfilledAt !== context.store.revision) {
    await backfillEmbeddings(context);
    state.backfilledAt = context.store.revision;
  }
  if (!state.matrix || state.matrix.revision !== context.store.revision) state.matrix = loadMatrix(context.store, embedder);
  const query = state.queries.get(queryText, () => embedder.embed(queryText));
  if (query.length !== state.matrix.dimensions)
    throw new Error(`query vector has ${query.length} dimensions, expected ${state.matrix.dimensions}`);
  return state.matrix.nearest(query, limit, alsoRowids);
}

/** Rows for the chunk ids a pool names, in pool order. */
export function poolSnippets(store: IndexStore, pool: Array<{ rowid: number }>): SnippetRow[] {
  return store.chunks.snippetsByRowid(pool.map((entry) => entry.rowid));
}
