import { QueryCache, queryCacheCapacity, type VectorState } from '../retrieval/vectorMatrix';
import type { Database } from './database';
import type { FileChange, FileNames, IndexPart } from './fileChange';
import { blobHex, hexBlob } from './hexBlob';
import { compareText } from './textOrder';

/**
 * A vector is keyed by its chunk's file (by id), lines and file hash (bytes) and by the model
 * that made it: the provider, model, dimensions and chunking version, stored once in
 * `derived_embedding_models`. The primary key leads with the file, so a file's vectors are one
 * key range.
 */
export const embeddingTableSchema = `
CREATE TABLE derived_embedding_models(
  id INTEGER PRIMARY KEY, provider TEXT NOT NULL, model TEXT NOT NULL, dimensions INTEGER NOT NULL, chunking_version TEXT NOT NULL);
CREATE TABLE derived_embeddings(
  file_id INTEGER NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, model INTEGER NOT NULL,
  source_hash BLOB NOT NULL, vector BLOB NOT NULL,
  PRIMARY KEY (file_id, start_line, end_line, model, source_hash)) WITHOUT ROWID;
`;

/** Which embedding function made a vector. */
export interface EmbeddingModel {
  readonly provider: string;
  readonly model: string;
  readonly dimensions: number;
}

/** One stored vector: the chunk it was computed from (lines of a file at a hash, chunking version) and its bytes. */
export interface StoredVector {
  path: string;
  startLine: number;
  endLine: number;
  fileHash: string;
  chunkingVersion: string;
  vector: Uint8Array;
}

/** The key a chunk's vector is found by: its lines of its file at its hash and chunking version. */
export function vectorKey(chunk: { path: string; startLine: number; endLine: number; fileHash: string; parserVersion: string }): string {
  return `${chunk.path}\0${chunk.startLine}\0${chunk.endLine}\0${chunk.fileHash}\0${chunk.parserVersion}`;
}

/**
 * The embeddings part: `derived_embeddings`, one vector per chunk range, file hash, chunking
 * version and model, and the in-memory state hybrid queries keep per model (`vectorState`).
 */
export class EmbeddingTable implements IndexPart {
  readonly tables = ['derived_embedding_models', 'derived_embeddings'] as const;
  private readonly states = new Map<string, VectorState>();
  /** Model ids by provider, model, dimensions and chunking version; dropped when a transaction rolls back (it may have added one). */
  private readonly modelIds = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly names: FileNames,
  ) {
    db.onRollback(() => this.modelIds.clear());
  }

  /** Vectors of this file's older content go; vectors of its current hash (and of every other file) stay. */
  replaceFile(change: FileChange): void {
    // A file new to the index has no vectors yet.
    if (change.file && change.known)
      this.db.run('DELETE FROM derived_embeddings WHERE file_id = ? AND source_hash <> ?', [change.fileId, hexBlob(change.file.sha256)]);
  }

  removeFile(change: FileChange): void {
    this.db.run('DELETE FROM derived_embeddings WHERE file_id = ?', [change.fileId]);
  }

  /** The id of `model` with `chunkingVersion`, added when new. */
  private modelId(model: EmbeddingModel, chunkingVersion: string): number {
    const key = [model.provider, model.model, model.dimensions, chunkingVersion];
    const cacheKey = key.join('\0');
    let id = this.modelIds.get(cacheKey);
    if (id === undefined) {
      const found = this.db.one(
        'SELECT id FROM derived_embedding_models WHERE provider = ? AND model = ? AND dimensions = ? AND chunking_version = ?',
        key,
      )?.[0];
      if (typeof found === 'number') id = found;
      else {
        this.db.run('INSERT INTO derived_embedding_models(provider, model, dimensions, chunking_version) VALUES (?,?,?,?)', key);
        id = this.db.lastInsertRowid();
      }
      this.modelIds.set(cacheKey, id);
    }
    return id;
  }

  /** Stores vectors (replacing any of the same key), atomically: inside a sync's batch, a failure undoes only these. */
  put(model: EmbeddingModel, vectors: StoredVector[]): void {
    if (vectors.length === 0) return;
    this.db.transaction(() => {
      for (const vector of vectors) {
        const fileId = this.names.idOf(vector.path);
        // A file no longer indexed has no chunks for the vector to serve.
        if (fileId === undefined) continue;
        this.db.run(
          'INSERT OR REPLACE INTO derived_embeddings(file_id, start_line, end_line, model, source_hash, vector) VALUES (?,?,?,?,?,?)',
          [fileId, vector.startLine, vector.endLine, this.modelId(model, vector.chunkingVersion), hexBlob(vector.fileHash), vector.vector],
        );
      }
    });
  }

  /** Every stored vector of `model` (any chunking version), by `vectorKey`. */
  vectors(model: EmbeddingModel): Map<string, Uint8Array> {
    const byKey = new Map<string, Uint8Array>();
    for (const row of this.rowsOf(model, 'e.vector')) byKey.set(row.key, row.value as Uint8Array);
    return byKey;
  }

  /** The `vectorKey` of every stored vector of `model`. */
  vectorKeys(model: EmbeddingModel): Set<string> {
    return new Set(this.rowsOf(model, 'NULL').map((row) => row.key));
  }

  private rowsOf(model: EmbeddingModel, value: string): Array<{ key: string; value: unknown }> {
    const rows = this.db.all(
      `SELECT e.file_id, e.start_line, e.end_line, e.source_hash, m.chunking_version, ${value}
       FROM derived_embedding_models m JOIN derived_embeddings e ON e.model = m.id
       WHERE m.provider = ? AND m.model = ? AND m.dimensions = ?`,
      [model.provider, model.model, model.dimensions],
    );
    return rows.map((row) => ({
      key: vectorKey({
        path: this.names.pathOf(row[0] as number),
        startLine: row[1] as number,
        endLine: row[2] as number,
        fileHash: blobHex(row[3]),
        parserVersion: row[4] as string,
      }),
      value: row[5],
    }));
  }

  /** Every stored vector with its key spelled out (source `path#Lstart-Lend`, hash, model), by source: for inspection and tests. */
  storedRows(): Array<{
    sourceKey: string;
    sourceHash: string;
    chunkingVersion: string;
    provider: string;
    model: string;
    dimensions: number;
    vector: Uint8Array;
  }> {
    const rows = this.db.all(
      `SELECT e.file_id, e.start_line, e.end_line, e.source_hash, m.chunking_version, m.provider, m.model, m.dimensions, e.vector
       FROM derived_embeddings e JOIN derived_embedding_models m ON m.id = e.model`,
    );
    return rows
      .map((row) => ({
        sourceKey: `${this.names.pathOf(row[0] as number)}#L${row[1] as number}-L${row[2] as number}`,
        sourceHash: blobHex(row[3]),
        chunkingVersion: row[4] as string,
        provider: row[5] as string,
        model: row[6] as string,
        dimensions: row[7] as number,
        vector: row[8] as Uint8Array,
      }))
      .sort((a, b) => compareText(a.sourceKey, b.sourceKey) || compareText(a.sourceHash, b.sourceHash));
  }

  count(): number {
    return this.db.one('SELECT COUNT(*) FROM derived_embeddings')?.[0] as number;
  }

  /** What hybrid queries keep in memory for `model` (kept as long as this store). */
  vectorState(model: EmbeddingModel): VectorState {
    const key = `${model.provider}/${model.model}/${model.dimensions}`;
    let state = this.states.get(key);
    if (!state) {
      state = { queries: new QueryCache(queryCacheCapacity) };
      this.states.set(key, state);
    }
    return state;
  }
}
