import type { Database, SqlValue, Statement } from 'sql.js';
import { decodeWords, forEachPosition, readVarints, type FileTerms } from './termCodes';
import { isAscii } from './words';

const asciiToken = /[a-z0-9_]+/g;

/** A word in at least this many chunks is common: counting it on demand would walk a long list. */
export const commonTermFloor = 1000;

/**
 * Rows written or deleted since the last build past which the counts are built again: at least
 * this many, or as many as the index held then. Adjusting from a file's term codes (`adjustFile`)
 * costs a few microseconds a row, a build a pass over the whole index (half a second for the
 * 37,000 chunks of a 1,400-file project), so keeping them costs less up to about the index's
 * size; a build also takes in words that became common meanwhile, which the counts kept do not.
 */
const maintenanceFloor = 2000;

export const commonTermsSchema = `CREATE TABLE IF NOT EXISTS search_common_terms(
  term TEXT NOT NULL, col INTEGER NOT NULL, documents INTEGER NOT NULL, PRIMARY KEY (term, col)) WITHOUT ROWID;`;

/**
 * How many chunks hold each common word, per full-text column. Counting a word means walking its
 * whole list, positions included: 20-40 ms for a word in a third of 800,000 chunks, on every
 * request that names it for the first time since the index changed. So the words in at least
 * `floor` chunks are counted once, in one pass over FTS4's own term table (`fts4aux`), and the
 * counts are kept exact as rows come and go: each written or deleted row's words (tokenized by
 * the index's own tokenizer) adjust the counts of those that are common. A sync that writes many
 * rows stops keeping them (`stale`) and builds them again at its end (`refresh`), which costs
 * less than adjusting them row by row. Rarer words are counted on demand (their lists are short).
 * The table is part of the database, so a rollback rolls the counts back with the rows.
 */
export class CommonTermCounts {
  private members: Set<string> | undefined;
  /** Prepared once: `adjust` runs them for every row written or deleted, and preparing costs more than running. */
  private tokenizer: Statement | undefined;
  private upsert: Statement | undefined;
  /** Count changes not yet written, by column and term (see `flush`). */
  private readonly pending = new Map<string, number>();
  private current: boolean | undefined;
  private written = 0;
  private writtenChanged = false;
  private documentsAtBuild = 0;

  constructor(
    private readonly db: Database,
    /** Where 'current' or 'stale' is kept across sessions (a `meta` row the database owns). */
    private readonly state: { get(): string | undefined; set(value: string): void },
    private readonly floor = commonTermFloor,
  ) {}

  /** Stored counts per column for the `terms` that are common; none while the table is being rebuilt. */
  counts(terms: string[], columns: number): Map<string, number[]> {
    const found = new Map<string, number[]>();
    if (!this.isCurrent() || terms.length === 0) return found;
    this.flush();
    const members = this.memberSet();
    const wanted = [...new Set(terms)].filter((term) => members.has(term));
    if (wanted.length === 0) return found;
    for (const term of wanted) found.set(term, new Array<number>(columns).fill(0));
    const rows =
      this.db.exec(`SELECT term, col, documents FROM search_common_terms WHERE term IN (${wanted.map(() => '?').join(',')})`, wanted)[0]
        ?.values ?? [];
    for (const [term, column, documents] of rows) {
      const perColumn = found.get(term as string);
      if (perColumn && (column as number) < columns) perColumn[column as number] = documents as number;
    }
    return found;
  }

  /**
   * A change of about `rows` rows (inserted plus deleted) is coming: when that is more than
   * keeping the counts is worth (see `adjust`), they stop being kept now rather than after
   * `maintenanceFloor` rows adjusted for nothing (a tenth of a checkout's re-index went there).
   */
  expectRows(rows: number): void {
    if (this.isCurrent() && this.written + rows > this.limit()) this.markStale();
  }

  private limit(): number {
    return Math.max(maintenanceFloor, this.documentsAtBuild);
  }

  /** True while the counts are kept: a change's rows should be passed to `adjustFile`. */
  get counting(): boolean {
    return this.isCurrent();
  }

  /** Counts `rows` more rows written or deleted; false (the counts no longer kept) past the limit. */
  private admit(rows: number): boolean {
    if (!this.isCurrent()) return false;
    this.written += rows;
    if (this.written > this.limit()) {
      this.markStale();
      return false;
    }
    this.writtenChanged = true;
    return true;
  }

  /**
   * A file's rows were inserted (+1) or deleted (-1): `terms` holds each row's distinct body
   * words and identifier parts as positions into the file's vocabulary (`termCodes.ts`), and
   * every row has the file's `pathText` in the path column. On an ASCII vocabulary each word is
   * one token of the index's tokenizer, so the common ones are counted from the positions, with
   * no text tokenized; any other vocabulary goes through `adjust`'s tokenizer, row by row.
   */
  adjustFile(terms: Pick<FileTerms, 'vocabulary' | 'chunks'>, pathText: string, delta: 1 | -1): void {
    const { vocabulary, chunks } = terms;
    if (chunks.length === 0 || !this.admit(chunks.length)) return;
    const members = this.memberSet();
    if (members.size === 0) return;
    if (!vocabulary.every(isAscii)) {
      for (const chunk of chunks)
        this.adjustTexts([decodeWords(chunk.body, vocabulary), pathText, decodeWords(chunk.idents, vocabulary)], delta);
      return;
    }
    const common = vocabulary.map((word) => members.has(word));
    const body = new Int32Array(vocabulary.length);
    const idents = new Int32Array(vocabulary.length);
    for (const chunk of chunks) {
      countPositions(chunk.body, common, body);
      countPositions(chunk.idents, common, idents);
    }
    vocabulary.forEach((word, index) => {
      if (body[index] > 0) this.add(`0\t${word}`, delta * body[index]);
      if (idents[index] > 0) this.add(`2\t${word}`, delta * idents[index]);
    });
    for (const token of this.tokens(pathText)) if (members.has(token)) this.add(`1\t${token}`, delta * chunks.length);
  }

  private add(key: string, delta: number): void {
    this.pending.set(key, (this.pending.get(key) ?? 0) + delta);
  }

  /** A row with these column texts was inserted (+1) or deleted (-1). */
  adjust(texts: string[], delta: 1 | -1): void {
    if (!this.admit(1)) return;
    this.adjustTexts(texts, delta);
  }

  private adjustTexts(texts: string[], delta: 1 | -1): void {
    const members = this.memberSet();
    if (members.size === 0) return;
    texts.forEach((text, column) => {
      for (const token of this.tokens(text)) {
        if (!members.has(token)) continue;
        this.add(`${column}\t${token}`, delta);
      }
    });
  }

  /**
   * Writes the adjustments since the last flush; the store calls it before each file's change
   * commits. A re-indexed file's old and new rows mostly share their common words, whose +1 and
   * -1 cancel here instead of costing two upserts each.
   */
  flush(): void {
    // The rows adjusted since the last build are kept with the state, so the limit spans sessions.
    if (this.writtenChanged && this.current) this.state.set(`current ${this.written}`);
    this.writtenChanged = false;
    if (this.pending.size === 0) return;
    this.upsert ??= this.db.prepare(
      'INSERT INTO search_common_terms(term, col, documents) VALUES (?, ?, ?) ON CONFLICT(term, col) DO UPDATE SET documents = documents + excluded.documents',
    );
    for (const [key, delta] of this.pending) {
      if (delta === 0) continue;
      const tab = key.indexOf('\t');
      // fts4aux has no row for a column without the word: the first chunk with it there adds one.
      this.upsert.run([key.slice(tab + 1), Number(key.slice(0, tab)), delta]);
    }
    this.pending.clear();
  }

  /**
   * The distinct tokens the index's tokenizer makes of `text`. On ASCII text `unicode61` with `_`
   * as a token character keeps runs of letters, digits and `_` and folds case, which a pattern
   * does in a fraction of the time of a tokenizer query (most of a re-index's counting went
   * there); any other text goes through the tokenizer itself.
   */
  private tokens(text: string): Iterable<string> {
    if (isAscii(text)) return new Set(text.toLowerCase().match(asciiToken));
    this.tokenizer ??= this.db.prepare('SELECT DISTINCT token FROM temp.pk_tokenizer WHERE input = ?');
    const tokens: string[] = [];
    try {
      this.tokenizer.bind([text]);
      while (this.tokenizer.step()) tokens.push(this.tokenizer.get()[0] as string);
    } finally {
      this.tokenizer.reset();
    }
    return tokens;
  }

  /** True when the counts are not kept (a large sync, or never built): `refresh` rebuilds them. */
  get stale(): boolean {
    return !this.isCurrent();
  }

  /**
   * Rebuilds the counts when stale (or now, with another floor): one pass over `fts4aux` picks
   * the words in at least `floor` chunks, then each one's per-column counts are read by term (the
   * virtual table seeks to it).
   */
  refresh(floor?: number): void {
    if (floor === undefined && this.isCurrent()) return;
    // The counts are read again from the index, which already holds the rows the pending changes were for.
    this.pending.clear();
    this.db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.pk_terms USING fts4aux(main, search_index)');
    this.db.exec('DROP TABLE IF EXISTS temp.pk_common');
    try {
      this.db.run("CREATE TEMP TABLE pk_common AS SELECT term FROM temp.pk_terms WHERE col = '*' AND documents >= ?", [
        floor ?? this.floor,
      ]);
      this.db.exec('DELETE FROM search_common_terms');
      this.db.exec(
        "INSERT INTO search_common_terms(term, col, documents) SELECT a.term, a.col, a.documents FROM temp.pk_common c JOIN temp.pk_terms a ON a.term = c.term WHERE a.col <> '*'",
      );
    } finally {
      this.db.exec('DROP TABLE IF EXISTS temp.pk_common');
    }
    this.setState('current');
    this.members = undefined;
    this.written = 0;
    this.documentsAtBuild = documentCount(this.db);
  }

  private isCurrent(): boolean {
    if (this.current === undefined) {
      const [state, written] = (this.state.get() ?? '').split(' ');
      this.current = state === 'current';
      this.written = this.current ? Number(written ?? 0) || 0 : 0;
      this.writtenChanged = false;
      if (this.current) this.documentsAtBuild = documentCount(this.db);
    }
    return this.current;
  }

  private markStale(): void {
    this.pending.clear();
    this.setState('stale');
    this.members = undefined;
  }

  private setState(state: 'current' | 'stale'): void {
    this.state.set(state);
    this.current = state === 'current';
    this.writtenChanged = false;
  }

  private memberSet(): Set<string> {
    this.members ??= new Set(
      (this.db.exec('SELECT DISTINCT term FROM search_common_terms')[0]?.values ?? []).map((row: SqlValue[]) => row[0] as string),
    );
    return this.members;
  }

  /** Forgets what it read from the database (after a rollback, the meta row may differ). */
  reset(): void {
    this.pending.clear();
    this.current = undefined;
    this.members = undefined;
  }
}

/** Adds one to `counts` at each position in `codes` (delta-coded varints, `termCodes.ts`) whose word is common. */
function countPositions(codes: Uint8Array, common: readonly boolean[], counts: Int32Array): void {
  forEachPosition(codes, (index) => {
    if (common[index]) counts[index]++;
  });
}

/** Rows in the full-text index, from FTS4's own totals row (its first varint). */
export function documentCount(db: Database): number {
  const blob = db.exec('SELECT value FROM search_index_stat WHERE id = 0')[0]?.values[0]?.[0];
  return blob instanceof Uint8Array ? (readVarints(blob)[0] ?? 0) : 0;
}
