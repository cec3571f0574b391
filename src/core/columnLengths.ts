import type { Database } from 'sql.js';
import { withRowFunction } from './sqlite';

/** Past this many touched rows (plus an eighth of the index) a full reload is cheaper than reading each again. */
const reloadFloor = 4096;

/**
 * Each full-text row's token count per column, by docid, with the column totals: what bm25
 * needs besides a row's own hits. FTS4's matchinfo 'l' reads them from `search_index_docsize`
 * with a b-tree lookup per matching row, and 'a' reads the totals row per call, which made
 * scoring a common word cost more than finding it. Here they are read once (in one pass over
 * `search_index_docsize`) and kept current: the store touches every docid it writes or
 * deletes, and touched rows are read again before the next use. Reading SQLite's own table
 * again (not the values written) keeps a rolled-back transaction from leaving wrong lengths.
 */
export class ColumnLengths {
  /** `columns` counts per docid; zero for a docid with no row. */
  private table = new Uint32Array(0);
  private present = new Uint8Array(0);
  private totals: number[];
  private documents = 0;
  private loaded = false;
  private touched = new Set<number>();

  constructor(
    private readonly db: Database,
    readonly columns: number,
  ) {
    this.totals = new Array<number>(columns).fill(0);
  }

  /** A row was inserted or deleted: its lengths are read again before the next use. */
  touch(docid: number): void {
    if (!this.loaded) return;
    this.touched.add(docid);
    if (this.touched.size > reloadFloor + this.documents / 8) this.drop();
  }

  /** Forgets everything; the next use reads the whole table. */
  drop(): void {
    this.loaded = false;
    this.table = new Uint32Array(0);
    this.present = new Uint8Array(0);
    this.totals.fill(0);
    this.documents = 0;
    this.touched.clear();
  }

  /** Loaded, with every touched row read again: ready to score. */
  current(): { lengths: Uint32Array; averages: number[] } {
    if (!this.loaded) this.load();
    else if (this.touched.size > 0) this.refresh();
    return { lengths: this.table, averages: this.averages() };
  }

  /** Column averages as FTS4's matchinfo 'a' gives them: rounded, from 32-bit totals. */
  private averages(): number[] {
    const documents = this.documents;
    return this.totals.map((total) => (documents > 0 ? Math.floor(((total % 2 ** 32) + Math.floor(documents / 2)) / documents) : 0));
  }

  private load(): void {
    this.drop();
    const highest = Number(this.db.exec('SELECT max(docid) FROM search_index_docsize')[0]?.values[0]?.[0] ?? 0);
    this.grow(highest);
    this.read('SELECT count(pk_row(size, docid)) FROM search_index_docsize');
    this.loaded = true;
  }

  private refresh(): void {
    const docids = [...this.touched];
    this.touched.clear();
    for (const docid of docids) this.clear(docid);
    for (let start = 0; start < docids.length; start += 500) {
      // Integers of our own making, so they can be spelled into the statement.
      this.read(
        `SELECT count(pk_row(size, docid)) FROM search_index_docsize WHERE docid IN (${docids.slice(start, start + 500).join(',')})`,
      );
    }
  }

  /** Runs a statement calling `pk_row(size, docid)` per docsize row, storing each row's varints. */
  private read(sql: string): void {
    withRowFunction(
      (bytes, _words, pointer, size, docid) => {
        this.grow(docid);
        const base = docid * this.columns;
        let column = 0;
        let value = 0;
        let shift = 0;
        for (let offset = pointer; offset < pointer + size && column < this.columns; offset++) {
          const byte = bytes[offset];
          value += (byte & 0x7f) * 2 ** shift;
          if (byte & 0x80) {
            shift += 7;
            continue;
          }
          this.table[base + column] = value;
          this.totals[column] += value;
          column++;
          value = 0;
          shift = 0;
        }
        if (!this.present[docid]) this.documents++;
        this.present[docid] = 1;
        return 1;
      },
      () => this.db.exec(sql),
    );
  }

  private clear(docid: number): void {
    if (docid >= this.present.length || !this.present[docid]) return;
    const base = docid * this.columns;
    for (let column = 0; column < this.columns; column++) {
      this.totals[column] -= this.table[base + column];
      this.table[base + column] = 0;
    }
    this.present[docid] = 0;
    this.documents--;
  }

  private grow(docid: number): void {
    if (docid < this.present.length) return;
    const capacity = Math.max(1024, Math.ceil((docid + 1) * 1.25));
    const table = new Uint32Array(capacity * this.columns);
    table.set(this.table);
    const present = new Uint8Array(capacity);
    present.set(this.present);
    this.table = table;
    this.present = present;
  }
}
