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
import { decodeVector, defaultEmbedder, encodeVector, type Embedder } from './embedder';

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

const insertSql =
  'INSERT OR REPLACE INTO derived_embeddings(source_key, source_hash, chunking_version, provider, model, dimensions, vector) VALUES (?,?,?,?,?,?,?)';

/** Stores vectors for freshly indexed chunks (their text is at hand; nothing is read again). */
export function storeEmbeddings(store: IndexStore, snippets: ReadonlyArray<EmbeddingSource>, embedder: Embedder = defaultEmbedder): number {
  if (snippets.length === 0) return 0;
  // Two chunks over the same lines share one key; the first one's text is the one indexed.
  const seen = new Set<string>();
  const unique = snippets.filter((snippet) => !seen.has(sourceKey(snippet)) && seen.add(sourceKey(snippet)) !== undefined);
  const rows = unique.map((snippet) => [
    sourceKey(snippet),
    snippet.fileHash,
    snippet.parserVersion,
    embedder.provider,
    embedder.model,
    embedder.dimensions,
    encodeVector(embedder.embed(snippet.indexText, titleOf(snippet))),
  ]);
  const db = store.database;
  const statement = db.prepare(insertSql);
  // A savepoint, not BEGIN: sync calls this inside its batch transaction, and a failure here must
  // undo only these vectors, never the batch around them.
  db.exec('SAVEPOINT store_vectors');
  try {
    for (const row of rows) statement.run(row);
    db.exec('RELEASE store_vectors');
  } catch (error) {
    db.exec('ROLLBACK TO store_vectors; RELEASE store_vectors');
    throw error;
  } finally {
    statement.free();
  }
  store.markChanged();
  return rows.length;
}

const missingSql = `SELECT s.path, s.file_hash, s.start_line, s.end_line, s.parser_version, s.qualified_name
  FROM project_snippets s
  LEFT JOIN derived_embeddings e ON e.source_key = s.path || '#L' || s.start_line || '-L' || s.end_line
    AND e.source_hash = s.file_hash AND e.chunking_version = s.parser_version AND e.provider = ? AND e.model = ? AND e.dimensions = ?
  WHERE s.stale = 0 AND e.source_key IS NULL
  ORDER BY s.path, s.start_line, s.end_line`;

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
  const missing = context.store.database.exec(missingSql, [embedder.provider, embedder.model, embedder.dimensions])[0]?.values ?? [];
  const byFile = new Map<
    string,
    Array<{ startLine: number; endLine: number; parserVersion: string; qualifiedName: string | null; fileHash: string }>
  >();
  for (const row of missing) {
    const list = byFile.get(row[0] as string) ?? [];
    list.push({
      fileHash: row[1] as string,
      startLine: row[2] as number,
      endLine: row[3] as number,
      parserVersion: row[4] as string,
      qualifiedName: row[5] as string | null,
    });
    byFile.set(row[0] as string, list);
  }
  let stored = 0;
  for (const [relativePath, chunks] of byFile) {
    // Unusable, or changed since indexing: the next sync deals with it.
    const read = readIndexable(context, relativePath);
    if (read.kind !== 'read' || read.sha256 !== chunks[0].fileHash) continue;
    const lines = splitLines(read.text);
    const own = ownTexts(lines, context.store.currentSnippets(relativePath));
    stored += storeEmbeddings(
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
  return stored;
}

/**
 * The text sync indexed for each chunk of a file: the lines no smaller chunk holds (a class its
 * header, each method its body), with the owners `buildRows` uses (`lineOwners`, rows in
 * insertion order), so vectors filled in later equal the ones computed at index time.
 */
export function ownTexts(lines: string[], rows: ReadonlyArray<Pick<SnippetRow, 'rowid' | 'startLine' | 'endLine'>>): Map<string, string> {
  const ordered = [...rows].sort((a, b) => a.rowid - b.rowid);
  const owners = lineOwners(ordered, lines.length);
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

/** Every current chunk's vector, dimension-major for a sparse query, rebuilt when the store changes. */
class VectorMatrix {
  constructor(
    readonly revision: number,
    readonly rowids: Int32Array,
    readonly scales: Float32Array,
    /** components[d * count + i]: dimension d of chunk i. */
    readonly components: Int8Array,
    readonly dimensions: number,
  ) {}

  get count(): number {
    return this.rowids.length;
  }

  private indexByRowid?: Map<number, number>;
  /** One score per chunk, reused by every query (800,000 chunks would otherwise allocate 3 MB a query). */
  private scratch?: Float32Array;

  /**
   * The `limit` most similar chunks by cosine, plus every chunk of `alsoRowids` that has a
   * vector, best first (ties by rowid). Only the query's non-zero dimensions are visited.
   */
  nearest(query: Float32Array, limit: number, alsoRowids: Iterable<number> = []): Array<{ rowid: number; cosine: number }> {
    const count = this.count;
    this.scratch ??= new Float32Array(count);
    const scores = this.scratch;
    scores.fill(0);
    for (let dimension = 0; dimension < this.dimensions; dimension++) {
      const weight = query[dimension];
      if (weight === 0) continue;
      const offset = dimension * count;
      for (let index = 0; index < count; index++) scores[index] += weight * this.components[offset + index];
    }
    const cosine = (index: number) => Math.round(scores[index] * this.scales[index] * 1e6) / 1e6;
    const top: Array<{ index: number; score: number }> = [];
    for (let index = 0; index < count; index++) {
      // Rounding moves a score by at most half a millionth: one this far below the last kept score cannot enter.
      if (top.length === limit && scores[index] * this.scales[index] < top[top.length - 1].score - 1e-6) continue;
      const score = cosine(index);
      if (score <= 0) continue;
      if (top.length === limit && score <= top[top.length - 1].score) continue;
      let at = top.length;
      while (at > 0 && (top[at - 1].score < score || (top[at - 1].score === score && this.rowids[top[at - 1].index] > this.rowids[index])))
        at--;
      top.splice(at, 0, { index, score });
      if (top.length > limit) top.pop();
    }
    const chosen = new Map(top.map((entry) => [entry.index, entry.score]));
    if (!this.indexByRowid) this.indexByRowid = new Map(Array.from(this.rowids, (rowid, index) => [rowid, index]));
    for (const rowid of alsoRowids) {
      const index = this.indexByRowid.get(rowid);
      if (index !== undefined && !chosen.has(index)) chosen.set(index, cosine(index));
    }
    return [...chosen]
      .map(([index, score]) => ({ rowid: this.rowids[index], cosine: score }))
      .sort((a, b) => b.cosine - a.cosine || a.rowid - b.rowid);
  }
}

const currentVectorsSql = `SELECT s.rowid, e.vector FROM project_snippets s
  JOIN derived_embeddings e ON e.source_key = s.path || '#L' || s.start_line || '-L' || s.end_line
    AND e.source_hash = s.file_hash AND e.chunking_version = s.parser_version AND e.provider = ? AND e.model = ? AND e.dimensions = ?
  WHERE s.stale = 0 ORDER BY s.rowid`;

function loadMatrix(store: IndexStore, embedder: Embedder): VectorMatrix {
  const rows = store.database.exec(currentVectorsSql, [embedder.provider, embedder.model, embedder.dimensions])[0]?.values ?? [];
  const count = rows.length;
  const dimensions = embedder.dimensions;
  const rowids = new Int32Array(count);
  const scales = new Float32Array(count);
  const components = new Int8Array(count * dimensions);
  rows.forEach((row, index) => {
    const { scale, components: vector } = decodeVector(row[1] as Uint8Array, dimensions);
    rowids[index] = row[0] as number;
    scales[index] = scale;
    for (let dimension = 0; dimension < dimensions; dimension++) components[dimension * count + index] = vector[dimension];
  });
  return new VectorMatrix(store.revision, rowids, scales, components, dimensions);
}

/** A small LRU of query vectors. */
class QueryCache {
  private entries = new Map<string, Float32Array>();
  constructor(private readonly capacity: number) {}

  get(key: string, compute: () => Float32Array): Float32Array {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const value = compute();
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}

export const queryCacheCapacity = 256;

interface VectorState {
  matrix?: VectorMatrix;
  backfilledAt?: number;
  queries: QueryCache;
}

const states = new WeakMap<IndexStore, Map<string, VectorState>>();

function stateOf(store: IndexStore, embedder: Embedder): VectorState {
  let byModel = states.get(store);
  if (!byModel) {
    byModel = new Map();
    states.set(store, byModel);
  }
  const key = `${embedder.provider}/${embedder.model}/${embedder.dimensions}`;
  let state = byModel.get(key);
  if (!state) {
    state = { queries: new QueryCache(queryCacheCapacity) };
    byModel.set(key, state);
  }
  return state;
}

/** The query-vector cache size, for tests. */
export function cachedQueryVectors(store: IndexStore, embedder: Embedder = defaultEmbedder): number {
  return stateOf(store, embedder).queries.size;
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
  const state = stateOf(context.store, embedder);
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
  return store.snippetsByRowid(pool.map((entry) => entry.rowid));
}
