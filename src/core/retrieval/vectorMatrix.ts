/**
 * The in-memory forms of the stored vectors a hybrid query uses: every current chunk's vector,
 * dimension-major, and an LRU of query vectors. The embeddings part keeps one `VectorState` per
 * embedding model and drops it with the store.
 */

/** Every current chunk's vector, dimension-major for a sparse query, rebuilt when the store changes. */
export class VectorMatrix {
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

/** A small LRU of query vectors. */
export class QueryCache {
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

/** What a hybrid query keeps per embedding model: the matrix, when missing vectors were last filled in, and query vectors. */
export interface VectorState {
  matrix?: VectorMatrix;
  backfilledAt?: number;
  queries: QueryCache;
}
