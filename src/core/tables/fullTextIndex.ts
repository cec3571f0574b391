import { ColumnLengths } from '../columnLengths';
import { CommonTermCounts, commonTermsSchema, documentCount } from '../commonTerms';
import { declareRowFunction, withRowFunction, type RowFunction } from '../sqlite';
import { decodeWords, readVarints, storedFileTerms, unpackFileTerms, writeVarints } from '../termCodes';
import { bm25, bm25GroupedWithIdf, bm25WithIdf, fullTextWeights } from './bm25';
import type { Database } from './database';
import type { FileChange, IndexPart } from './fileChange';

/**
 * The index proper, `search_index`, and what deleting from it needs: per file (by id) one
 * deflated blob of its vocabulary and each chunk's (`docid`, the chunk's id) words as positions
 * into it (`packFileTerms`). `search_terms`, the external content, holds a row only while it is
 * being deleted.
 */
export const fullTextSchema = `
CREATE TABLE search_terms(docid INTEGER PRIMARY KEY, body TEXT NOT NULL, path TEXT NOT NULL, idents TEXT NOT NULL);
CREATE TABLE search_vocabulary(file_id INTEGER PRIMARY KEY, terms BLOB NOT NULL);
CREATE VIRTUAL TABLE search_index USING fts4(content="search_terms", body, path, idents, tokenize=unicode61 "tokenchars=_");
`;

/** A row to write into (or, through `search_terms`, delete from) the full-text index at the next commit. */
interface StagedRow {
  docid: number;
  body: string;
  path: string;
  idents: string;
}

/** A row to delete, with the token counts per column the index holds for it (its docsize row). */
interface StagedDelete extends StagedRow {
  tokens: number[];
}

interface StagedRows {
  deletes: StagedDelete[];
  inserts: StagedRow[];
}

/**
 * Text to bind for FTS4 as its UTF-8 bytes (sql.js copies bytes at once, a string it encodes in
 * JavaScript; FTS4 reads either as the text). An empty text stays a string: sql.js binds an
 * empty byte array as NULL.
 */
function textBytes(text: string): Uint8Array | string {
  return text.length > 0 ? Buffer.from(text, 'utf8') : '';
}

/** What the FTS `path` column holds for a file: its path with separators as spaces. */
function pathTerms(path: string): string {
  return path.replace(/[/._-]+/g, ' ');
}

/**
 * Document counts already read, valid while the index's revision stands: the count of a word
 * not in `CommonTermCounts` costs a walk over its list, and a session's requests share words.
 */
export interface StatisticsCache {
  revision: number;
  documents: number | undefined;
  terms: Map<string, number[]>;
  /** `commonTermCounts` answers by bare token: its stored counts, or null for a word that is not common. */
  common: Map<string, number[] | null>;
}
/**
 * The level the merged segment of `optimize` is kept at. FTS4 merges a level's segments into one of
 * the next level when there are 16, so up to 15 segments a level gather beside it (each query
 * reads them all, as FTS4 does without an optimize) and it is rewritten only after about
 * 15 × 16 × 16 flushes of new rows (one or two a sync), or at the next large sync's `optimize`.
 */
const mergedSegmentLevel = 2;

/** The level a merge gathers every segment at (`beginMerge`): above any that new rows reach before 4,096 flushes. */
const mergingLevel = mergedSegmentLevel + 1;

/**
 * Leaf pages (about 4 KB each) one step of a merge writes. FTS4 finishes the term it is writing
 * before it stops, so a step also holds the longest list of one word. On the 5,000-file bench
 * index (15 segments, load 14) FTS4's one `optimize` took 14.1 s; steps of 256 pages took 12.0 s in
 * 15 steps (the longest 1.3 s), of 64 pages 11.2 s in 58 (the longest 354 ms).
 */
const defaultMergeStepPages = 64;

/**
 * Free pages one step of `releaseStep` gives back (4 KB each). At 50,000 files the pages a merge
 * freed took one `incremental_vacuum` of 2.1 s (about 13,000 pages, 6 a millisecond, load 2-3);
 * 512 makes a step of the order of a merge step's.
 */
const defaultReleaseStepPages = 512;

/** Terms kept per map (about 100 bytes each): a pasted text counts a few hundred words, so a smaller cache would hardly outlive a few requests. */
const maxCachedTerms = 16_384;

/**
 * The full-text part: the FTS4 index `search_index` over external content `search_terms`, the
 * words each chunk indexed (`search_vocabulary`, see `termCodes.ts`), the common
 * words' counts (`search_common_terms`) and the column lengths bm25 uses, with their caches.
 */
export class FullTextIndex implements IndexPart {
  readonly tables = [
    'search_terms',
    'search_vocabulary',
    'search_index',
    'search_index_docsize',
    'search_index_stat',
    'search_index_segdir',
    'search_index_segments',
    'search_common_terms',
  ] as const;

  /** Token counts per full-text column of every row, for ranking (see `rankFullText`). */
  private readonly columnLengths: ColumnLengths;
  /** Chunk counts of the common words, for ranking (see `commonTermCounts`). */
  private readonly commonTerms: CommonTermCounts;
  private statistics: StatisticsCache = { revision: -1, documents: undefined, terms: new Map(), common: new Map() };
  /** Full-text rows of the file change in progress, written at the commit of the batch it joins (see `writeStaged`). */
  private staged: StagedRows = { deletes: [], inserts: [] };
  private batchRows: StagedRows = { deletes: [], inserts: [] };
  /** Leaf pages a step of a merge writes (`mergeStep`); tests make it small to get many steps from a small index. */
  mergeStepPages = defaultMergeStepPages;
  /** Free pages a step of `releaseStep` gives back; tests make it small to get many steps. */
  releaseStepPages = defaultReleaseStepPages;

  constructor(private readonly db: Database) {
    this.columnLengths = new ColumnLengths(db.connection, fullTextWeights.length);
    this.commonTerms = new CommonTermCounts(db.connection, {
      get: () => db.meta('common_terms'),
      set: (value) => db.setMeta('common_terms', value),
    });
    db.onRollback((outermost) => {
      this.commonTerms.reset();
      this.staged = { deletes: [], inserts: [] };
      if (outermost) this.batchRows = { deletes: [], inserts: [] };
    });
    db.onBeforeCommit((outermost) => this.beforeCommit(outermost));
    db.onBeforeCommit(() => this.commonTerms.flush());
    db.onConfigure((connection) => {
      // The same tokenizer as the index, to count tokens exactly (see dropRows).
      connection.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.pk_tokenizer USING fts3tokenize('unicode61', 'tokenchars=_')`);
      // Added after schema 2 without a rebuild: an index without it builds it at its next sync.
      connection.exec(commonTermsSchema);
      // bm25 inside SQLite, so ranking a full-text query does not copy every matching row out.
      const counts = (info: unknown) =>
        info instanceof Uint8Array ? new Uint32Array(info.buffer, info.byteOffset, info.byteLength >>> 2) : undefined;
      connection.create_function('pk_bm25', (info: unknown) => {
        const values = counts(info);
        return values ? bm25(values, fullTextWeights) : 0;
      });
      declareRowFunction(db.sql, connection);
    });
  }

  /**
   * Stages a file's chunks for deletion from the full-text index. FTS4 re-tokenizes the stored
   * row to know which entries to delete; the row holds each distinct word once (all the index
   * needs to find them), so FTS4 subtracts too few tokens from the column totals bm25 relies
   * on: the chunk's real token counts (its `search_index_docsize` row, read here) are kept with
   * it and `writeStaged` sets the totals right afterwards.
   */
  private dropRows(change: FileChange): void {
    const { path } = change;
    if (change.retiredChunkIds.length === 0) return;
    const packed = this.db.one('SELECT terms FROM search_vocabulary WHERE file_id = ?', [change.fileId])?.[0];
    if (!(packed instanceof Uint8Array)) return;
    const { vocabulary, chunks } = unpackFileTerms(packed);
    if (chunks.length === 0) return;
    // A file's chunks have consecutive docids: one range read gives every indexed one's token counts.
    const sizes = new Map<number, number[]>();
    for (const row of this.db.all('SELECT docid, size FROM search_index_docsize WHERE docid BETWEEN ? AND ?', [
      chunks[0].docid,
      chunks[chunks.length - 1].docid,
    ]))
      if (row[1] instanceof Uint8Array) sizes.set(row[0] as number, readVarints(row[1]));
    const pathText = pathTerms(path);
    const indexed = chunks.filter((chunk) => sizes.has(chunk.docid));
    for (const chunk of indexed) {
      const words = decodeWords(chunk.body, vocabulary);
      const identifiers = decodeWords(chunk.idents, vocabulary);
      this.staged.deletes.push({
        docid: chunk.docid,
        body: words,
        path: pathText,
        idents: identifiers,
        tokens: sizes.get(chunk.docid) ?? [],
      });
      this.columnLengths.touch(chunk.docid);
    }
    this.commonTerms.adjustFile({ vocabulary, chunks: indexed }, pathText, -1);
  }

  replaceFile(change: FileChange): void {
    if (change.known) this.dropRows(change);
    const pathText = pathTerms(change.path);
    change.snippets.forEach((snippet, index) => {
      const docid = change.chunkIds[index];
      this.staged.inserts.push({ docid, body: snippet.indexText, path: pathText, idents: snippet.identifierParts });
      this.columnLengths.touch(docid);
    });
    // The stored terms name the first docid only: chunk i is first + i.
    if (!change.terms || change.chunkIds.some((docid, index) => docid !== change.chunkIds[0] + index))
      throw new Error(
        `the full-text terms of ${change.path} cannot be stored: ${change.terms ? 'its chunk ids are not consecutive' : 'none given'}`,
      );
    const stored = storedFileTerms(change.chunkIds[0] ?? 0, change.terms);
    // The new rows' words, as the file's term codes hold them, adjust the common words' counts.
    if (this.commonTerms.counting && change.snippets.length > 0) this.commonTerms.adjustFile(unpackFileTerms(stored), pathText, 1);
    this.db.run('INSERT OR REPLACE INTO search_vocabulary(file_id, terms) VALUES (?, ?)', [change.fileId, stored]);
  }

  removeFile(change: FileChange): void {
    this.dropRows(change);
    this.db.run('DELETE FROM search_vocabulary WHERE file_id = ?', [change.fileId]);
  }

  /** A file's staged rows join the batch's when its savepoint is released; the batch's are written at its commit. */
  private beforeCommit(outermost: boolean): void {
    this.batchRows.deletes.push(...this.staged.deletes);
    this.batchRows.inserts.push(...this.staged.inserts);
    this.staged = { deletes: [], inserts: [] };
    if (outermost) this.writeStaged();
  }

  /**
   * Writes the staged rows: deletions, then insertions, each by ascending docid. FTS4 keeps new
   * terms in memory until a flush, and it flushes at every savepoint, at a docid lower than the
   * last one it holds, and at each megabyte: written per file, inside each file's savepoint, the
   * 5,000-file bench wrote 5,000 tiny segments and merged them again and again (a third of the
   * writer's time went to the releases). The deletions are one statement: their words go into
   * `search_terms` (empty otherwise), one ranged DELETE lets FTS4 remove them all, and the
   * column totals are then set from the deleted rows' real token counts. A body goes in as its
   * UTF-8 bytes, which sql.js copies at once: FTS4 reads a blob's bytes as the text, and binding
   * a string costs three passes over it in JavaScript.
   */
  private writeStaged(): void {
    const { deletes, inserts } = this.batchRows;
    this.batchRows = { deletes: [], inserts: [] };
    if (deletes.length > 0) this.deleteStaged(deletes);
    inserts.sort((a, b) => a.docid - b.docid);
    for (const row of inserts) {
      this.db.run('INSERT INTO search_index(docid, body, path, idents) VALUES (?,?,?,?)', [
        row.docid,
        textBytes(row.body),
        textBytes(row.path),
        textBytes(row.idents),
      ]);
    }
  }

  private deleteStaged(deletes: StagedDelete[]): void {
    deletes.sort((a, b) => a.docid - b.docid);
    const totals = this.storedTotals();
    for (const row of deletes) {
      // The words exist as a row only for this delete: FTS4 reads them to know what to remove.
      this.db.run('INSERT OR REPLACE INTO search_terms(docid, body, path, idents) VALUES (?,?,?,?)', [
        row.docid,
        textBytes(row.body),
        textBytes(row.path),
        textBytes(row.idents),
      ]);
      for (let column = 0; column < totals.length; column++) totals[column] -= row.tokens[column] ?? 0;
    }
    this.db.run('DELETE FROM search_index WHERE docid BETWEEN ? AND ?', [deletes[0].docid, deletes[deletes.length - 1].docid]);
    this.db.exec('DELETE FROM search_terms');
    this.setStoredTotals(totals);
  }

  /** The column token totals of FTS4's totals row (its varints after the row count). */
  private storedTotals(): number[] {
    const blob = this.db.one('SELECT value FROM search_index_stat WHERE id = 0')?.[0];
    const values = blob instanceof Uint8Array ? readVarints(blob) : [];
    return Array.from({ length: fullTextWeights.length }, (_, column) => values[1 + column] ?? 0);
  }

  /** Puts `totals` into FTS4's totals row, keeping its row count and byte total. */
  private setStoredTotals(totals: number[]): void {
    const blob = this.db.one('SELECT value FROM search_index_stat WHERE id = 0')?.[0];
    if (!(blob instanceof Uint8Array)) return;
    const values = readVarints(blob);
    totals.forEach((total, column) => (values[1 + column] = Math.max(0, total)));
    this.db.run('UPDATE search_index_stat SET value = ? WHERE id = 0', [writeVarints(values)]);
  }

  /**
   * Merges the full-text index into one segment at once (`beginMerge`, `mergeStep` until done,
   * `endMerge`); a sync runs the same steps with a turn of the event loop between them.
   */
  optimize(): void {
    if (this.beginMerge()) while (this.mergeStep()) continue;
    this.endMerge();
  }

  /**
   * Prepares a merge of the whole index into one segment, done by `mergeStep` in bounded steps:
   * FTS4's own `optimize` is one statement, which at 50,000 files held the engine's thread for
   * 82 s and journalled every page of the index. FTS4's incremental merge (`merge=X,2`) merges the
   * segments of one level, so every segment is first given the level above `mergedSegmentLevel`,
   * numbered in their age order (FTS4 reads a higher level as older, a lower idx within a level as
   * older), and the steps merge that level into one segment a level up. Rows written between steps
   * flush to level 0 and are merged among themselves, never into the merge under way. A merge left
   * unfinished (its progress is FTS4's hint row in `search_index_stat`) is continued instead.
   * False when there is nothing to merge.
   */
  beginMerge(): boolean {
    this.db.fitJournal();
    if (this.db.one('SELECT 1 FROM search_index_stat WHERE id = 1 AND length(value) > 0') !== undefined) return true;
    const segments = this.db.all('SELECT level, idx FROM search_index_segdir ORDER BY level DESC, idx ASC');
    if (segments.length < 2) return false;
    this.db.transaction(() => {
      // Each (level, idx) is the key: negative levels first, so no new key meets an old one.
      segments.forEach(([level, idx], age) =>
        this.db.run('UPDATE search_index_segdir SET level = ?, idx = ? WHERE level = ? AND idx = ?', [-1 - age, 0, level, idx]),
      );
      this.db.run('UPDATE search_index_segdir SET level = ?, idx = -1 - level WHERE level < 0', [mergingLevel]);
    });
    this.db.markUnsaved();
    return true;
  }

  /** One step of the merge `beginMerge` prepared: about `mergeStepPages` leaf pages written. True while there is more to merge. */
  mergeStep(): boolean {
    const before = this.totalChanges();
    this.db.exec(`INSERT INTO search_index(search_index) VALUES ('merge=${Math.max(1, Math.floor(this.mergeStepPages))},2')`);
    this.db.markUnsaved();
    // FTS4's documented test: a merge that changed fewer than two rows found nothing left to merge.
    return this.totalChanges() - before >= 2;
  }

  /**
   * Ends a merge: the merged segment goes to `mergedSegmentLevel`. Kept at level 0, where every
   * later write adds a small segment, the 16th one there made FTS4 merge the whole level, so
   * every fifteenth sync rewrote the entire index (the 1,400-file checkout's way back merged 6.7 MB
   * for 200 files, and a one-file edit of a 50,000-file index would write hundreds of megabytes).
   * At that level it is older than every segment below it, as FTS4's order of levels requires, and
   * the small ones merge among themselves until that level fills.
   */
  endMerge(): void {
    const merged = this.db.all('SELECT level, idx FROM search_index_segdir WHERE level >= ? LIMIT 2', [mergedSegmentLevel]);
    if (merged.length === 1 && merged[0][0] !== mergedSegmentLevel)
      this.db.run('UPDATE search_index_segdir SET level = ?, idx = 0 WHERE level = ? AND idx = ?', [
        mergedSegmentLevel,
        merged[0][0],
        merged[0][1],
      ]);
    const below = this.db.all('SELECT level, idx FROM search_index_segdir WHERE level < ? LIMIT 2', [mergedSegmentLevel]);
    // A lone segment below that level (an index never merged before, one flush) moves up too.
    if (merged.length === 0 && below.length === 1)
      this.db.run('UPDATE search_index_segdir SET level = ?, idx = 0 WHERE level = ? AND idx = ?', [
        mergedSegmentLevel,
        below[0][0],
        below[0][1],
      ]);
    this.db.markUnsaved();
  }

  /**
   * One step of giving back the pages a merge freed: about `releaseStepPages` of them. The merged
   * segments' pages are freed only by the merge's last step, after every page it wrote, so no later
   * step reuses them (one `optimize` statement did); left alone they would stay in the file
   * (5,000-file bench: 86.4 → 90.4 MB, 1.48 → 1.55× the source). True while free pages remain.
   */
  releaseStep(): boolean {
    const released = this.db.releaseFreePagesStep(this.releaseStepPages);
    this.db.markUnsaved();
    return released;
  }

  private totalChanges(): number {
    return this.db.one('SELECT total_changes()')?.[0] as number;
  }

  /** About `rows` full-text rows are about to be written or deleted: a large change stops keeping the common words' counts up front. */
  expectRows(rows: number): void {
    this.commonTerms.expectRows(rows);
  }

  /** True when the common words' counts are not kept (a large sync, or never built); see `refreshCommonTerms`. */
  get commonTermsStale(): boolean {
    return this.commonTerms.stale;
  }

  /** Rebuilds the common words' counts (one pass over the index) when they are stale, or now with another `floor` (tests keep every word with 1). */
  refreshCommonTerms(floor?: number): void {
    if (floor === undefined && !this.commonTerms.stale) return;
    this.db.fitJournal();
    this.commonTerms.refresh(floor);
    this.db.markChanged();
  }

  /**
   * Stored chunk counts per full-text column for those of `terms` (bare tokens) that are common.
   * Answers are kept while the index's revision stands (see `statisticsCache`): a request asks
   * for the same words several times (its rarest words, its phrases, its statistics).
   */
  commonTermCounts(terms: string[]): Map<string, number[]> {
    const cache = this.statisticsCache().common;
    const found = new Map<string, number[]>();
    const missing = [...new Set(terms)].filter((term) => !cache.has(term));
    if (missing.length > 0) {
      const counted = this.commonTerms.counts(missing, fullTextWeights.length);
      for (const term of missing) cache.set(term, counted.get(term) ?? null);
    }
    for (const term of terms) {
      const perColumn = cache.get(term);
      if (perColumn) found.set(term, perColumn);
    }
    return found;
  }

  /**
   * Rows in the full-text index, kept with the request statistics while the index's revision
   * stands: a search asks several times (its statistics, its phrases' bounds, the file nudge), and
   * each read prepared a statement of its own. Inside a transaction the rows may yet change, so it
   * is read afresh there.
   */
  documentCount(): number {
    if (this.db.inTransaction) return documentCount(this.db.connection);
    const cache = this.statisticsCache();
    return (cache.documents ??= documentCount(this.db.connection));
  }

  /** The document counts read since the index last changed (see `StatisticsCache`); the caller fills it. */
  statisticsCache(): StatisticsCache {
    const revision = this.db.revision;
    if (
      this.statistics.revision !== revision ||
      this.statistics.terms.size > maxCachedTerms ||
      this.statistics.common.size > maxCachedTerms
    )
      this.statistics = { revision, documents: undefined, terms: new Map(), common: new Map() };
    return this.statistics;
  }

  /**
   * The best full-text matches, by bm25 from FTS4 `matchinfo('pcnalx')` (weights favour
   * identifiers and paths over body words). The score is computed and sorted inside SQLite, so
   * only the kept rows cross into JavaScript.
   */
  fullText(matchExpression: string, limit: number): Array<{ rowid: number; bm25: number }> {
    return this.db
      .all(
        "SELECT docid, pk_bm25(matchinfo(search_index, 'pcnalx')) AS score FROM search_index WHERE search_index MATCH ? ORDER BY score DESC, docid LIMIT ?",
        [matchExpression, limit],
      )
      .map((row) => ({ rowid: row[0] as number, bm25: row[1] as number }));
  }

  /**
   * Chunks holding each of `terms` (MATCH phrases), per full-text column: FTS4's
   * `matchinfo('ncx')` of any one matching row carries them all, each phrase's list walked once.
   * All zero when no row matches; throws when FTS4 rejects the expression.
   */
  termDocumentCounts(terms: string[]): number[][] {
    const columns = fullTextWeights.length;
    // A cached statement: a pasted text counts twice a request (its words, then their stems), each time preparing it anew before.
    const blob = this.db.one("SELECT matchinfo(search_index, 'ncx') FROM search_index WHERE search_index MATCH ? LIMIT 1", [
      terms.join(' OR '),
    ])?.[0];
    const info =
      blob instanceof Uint8Array ? new Uint32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength)) : undefined;
    return terms.map((_, phrase) => Array.from({ length: columns }, (_, column) => info?.[2 + 3 * (phrase * columns + column) + 2] ?? 0));
  }

  /**
   * Every chunk matching `expression`, its hits handed to `row` (`matchinfo('pcy')` words, as
   * `pk_row` reads them; a chunk `row` answers 0 for is left out): the per-chunk evidence the
   * whole-file score sums by file (`retrieval/fileScore.ts`).
   */
  scanMatches(expression: string, row: RowFunction): number[] {
    return withRowFunction(row, () =>
      this.db
        .once(
          "SELECT docid FROM search_index WHERE search_index MATCH ? AND pk_row(matchinfo(search_index, 'pcy'), search_index.docid) > 0",
          [expression],
        )
        .map((found) => found[0] as number),
    );
  }

  /** Row ids of the first `limit` chunks matching, by row id (no ranking, no per-row statistics). */
  matchingRowids(matchExpression: string, limit: number): number[] {
    return this.db
      .all('SELECT docid FROM search_index WHERE search_index MATCH ? LIMIT ?', [matchExpression, limit])
      .map((row) => row[0] as number);
  }

  /**
   * As `fullText`, with the document frequencies already known (`idf` per phrase and column, in
   * expression order; 0 ignores a phrase), so FTS4 only reads each row's own hits
   * (`matchinfo('pcy')`) instead of walking every phrase's whole list for its totals; the row's
   * column lengths come from `ColumnLengths` instead of a docsize lookup per row. The scores of
   * the matching rows in `include` are returned too, whatever their rank: the scoring function
   * notes them as SQLite calls it, so no second query (or window sort) is needed.
   */
  rankFullText(
    query: { expression: string; idf: number[]; groups?: number[]; lengthNormalization?: number },
    limit: number,
    include: Iterable<number> = [],
  ): { hits: Array<{ rowid: number; bm25: number }>; included: Map<number, number> } {
    const { lengths, averages } = this.columnLengths.current();
    const columns = this.columnLengths.columns;
    const wanted = new Set(include);
    const included = new Map<number, number>();
    const { groups, lengthNormalization: b } = query;
    // Phrases that stand for one term are scored as one (`bm25GroupedWithIdf`); the scratch is allocated once per query.
    const scratch = groups ? new Float64Array(2 * (Math.max(-1, ...groups) + 1)) : undefined;
    const rows = withRowFunction(
      (_bytes, words, pointer, size, docid) => {
        // matchinfo's values are 32-bit words, aligned as SQLite allocated them.
        if (pointer % 4 !== 0 || size < 8) return 0;
        const score =
          groups && scratch
            ? bm25GroupedWithIdf(words, pointer / 4, query.idf, groups, scratch, fullTextWeights, lengths, docid * columns, averages, b)
            : bm25WithIdf(words, pointer / 4, query.idf, fullTextWeights, lengths, docid * columns, averages, b);
        if (wanted.has(docid)) included.set(docid, score);
        return score;
      },
      () =>
        this.db.all(
          "SELECT docid, pk_row(matchinfo(search_index, 'pcy'), docid) AS score FROM search_index WHERE search_index MATCH ? ORDER BY score DESC, docid LIMIT ?",
          [query.expression, limit],
        ),
    );
    return { hits: rows.map((row) => ({ rowid: row[0] as number, bm25: row[1] as number })), included };
  }
}
