import { QueryCache, queryCacheCapacity, type VectorState } from '../retrieval/vectorMatrix';
import type { Database } from './database';
import type { FileChange, IndexPart } from './fileChange';

export const embeddingTableSchema = `
CREATE TABLE derived_embeddings(
  source_key TEXT NOT NULL, source_hash TEXT NOT NULL, chunking_version TEXT NOT NULL,
  provider TEXT NOT NULL, model TEXT NOT NULL, dimensions INTEGER NOT NULL, vector BLOB NOT NULL,
  PRIMARY KEY (source_key, source_hash, chunking_version, provider, model, dimensions)) WITHOUT ROWID;
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

function sourceKey(vector: { path: string; startLine: number; endLine: number }): string {
  return `${vector.path}#L${vector.startLine}-L${vector.endLine}`;
}

/**
 * The embeddings part: `derived_embeddings`, one vector per chunk range, file hash, chunking
 * version and model, and the in-memory state hybrid queries keep per model (`vectorState`).
 */
export class EmbeddingTable implements IndexPart {
  readonly tables = ['derived_embeddings'] as const;
  private readonly states = new Map<string, VectorState>();

  constructor(private readonly db: Database) {}

  /** Vectors of this file's older content go; vectors of its current hash (and of every other file) stay. */
  replaceFile(change: FileChange): void {
    if (change.file) this.deleteOf(change.path, change.file.sha256);
  }

  removeFile(change: FileChange): void {
    this.deleteOf(change.path);
  }

  /**
   * Removes the vectors of one file (keys are `path#L<start>-L<end>`), all of them or only those
   * of other hashes than `keepHash`. A key range, so it uses the primary key; the `#` check
   * keeps `a.ts#b.ts`-style names of other files out.
   */
  private deleteOf(path: string, keepHash?: string): void {
    const where = "source_key >= ? AND source_key < ? AND instr(substr(source_key, ?), '#') = 0";
    const range = [`${path}#`, `${path}$`, [...path].length + 2];
    if (keepHash === undefined) this.db.run(`DELETE FROM derived_embeddings WHERE ${where}`, range);
    else this.db.run(`DELETE FROM derived_embeddings WHERE ${where} AND source_hash <> ?`, [...range, keepHash]);
  }

  /** Stores vectors (replacing any of the same key), atomically: inside a sync's batch, a failure undoes only these. */
  put(model: EmbeddingModel, vectors: StoredVector[]): void {
    if (vectors.length === 0) return;
    this.db.transaction(() => {
      for (const vector of vectors)
        this.db.run(
          'INSERT OR REPLACE INTO derived_embeddings(source_key, source_hash, chunking_version, provider, model, dimensions, vector) VALUES (?,?,?,?,?,?,?)',
          [sourceKey(vector), vector.fileHash, vector.chunkingVersion, model.provider, model.model, model.dimensions, vector.vector],
        );
    });
  }

  /** Every stored vector of `model`, by `vectorKey`. */
  vectors(model: EmbeddingModel, withBytes = true): Map<string, Uint8Array> {
    const columns = withBytes ? 'source_key, source_hash, chunking_version, vector' : 'source_key, source_hash, chunking_version, NULL';
    const rows = this.db.all(`SELECT ${columns} FROM derived_embeddings WHERE provider = ? AND model = ? AND dimensions = ?`, [
      model.provider,
      model.model,
      model.dimensions,
    ]);
    const byKey = new Map<string, Uint8Array>();
    for (const row of rows) {
      const match = /^(.*)#L(\d+)-L(\d+)$/s.exec(row[0] as string);
      if (!match) continue;
      const key = vectorKey({
        path: match[1],
        startLine: Number(match[2]),
        endLine: Number(match[3]),
        fileHash: row[1] as string,
        parserVersion: row[2] as string,
      });
      byKey.set(key, row[3] as Uint8Array);
    }
    return byKey;
  }

  /** The `vectorKey` of every stored vector of `model`. */
  vectorKeys(model: EmbeddingModel): Set<string> {
    return new Set(this.vectors(model, false).keys());
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
