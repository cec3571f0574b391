import type { Database } from '../tables/database';
import { blobHex, hexBlob, optionalHexBlob } from '../tables/hexBlob';
import type { CurationState } from './state';

/**
 * The curation tables of the index: a projection of the log. They are rebuilt whole from the log
 * whenever the log's digest differs from the one they were built from (a new database, another
 * writer's append, a deleted database), so they never hold anything the log does not. They are
 * created when curation first attaches to a store (`CREATE TABLE IF NOT EXISTS`), so an index
 * written before they existed gets them without a schema change.
 */
const tables = `
CREATE TABLE IF NOT EXISTS curation_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS curation_pins(
  id TEXT PRIMARY KEY, target TEXT NOT NULL, path TEXT NOT NULL, start_line INTEGER, end_line INTEGER,
  qualified_name TEXT, text_hash TEXT, created_at TEXT NOT NULL, removed_by TEXT, removed_at TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS curation_memory(
  docid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, claim TEXT NOT NULL, subject TEXT, created_at TEXT NOT NULL,
  status TEXT NOT NULL, supersedes TEXT, superseded_by TEXT, reason TEXT, changed_at TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS curation_memory_search USING fts4(claim, tokenize=unicode61 "tokenchars=_");
CREATE TABLE IF NOT EXISTS curation_labels(
  id TEXT PRIMARY KEY, at TEXT NOT NULL, label TEXT NOT NULL, source TEXT NOT NULL, candidate TEXT NOT NULL,
  query TEXT NOT NULL, features TEXT NOT NULL) WITHOUT ROWID;
`;

export interface MemoryRow {
  id: string;
  claim: string;
  createdAt: string;
  status: string;
  supersedes: string | null;
  supersededBy: string | null;
  reason: string | null;
  changedAt: string | null;
  subject: string | null;
}

function toMemory(row: unknown[]): MemoryRow {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    id: String(row[0]),
    claim: String(row[1]),
    subject: text(row[2]),
    createdAt: String(row[3]),
    status: String(row[4]),
    supersedes: text(row[5]),
    supersededBy: text(row[6]),
    reason: text(row[7]),
    changedAt: text(row[8]),
  };
}

const memoryColumns = 'id, claim, subject, created_at, status, supersedes, superseded_by, reason, changed_at';

/**
 * The curation part of the index: the only reader and writer of the `curation_*` tables
 * (test/core/storeParts.test.ts scans its SQL like the other parts'). Unlike the file parts it
 * takes no per-file change: its rows are the log's replay, replaced whole.
 */
export class CurationTables {
  readonly tables = [
    'curation_meta',
    'curation_pins',
    'curation_memory',
    'curation_memory_search',
    'curation_memory_search_content',
    'curation_memory_search_segments',
    'curation_memory_search_segdir',
    'curation_memory_search_docsize',
    'curation_memory_search_stat',
    'curation_labels',
  ] as const;

  constructor(private readonly db: Database) {}

  /** The digest of the log the tables were last built from (creating the tables when they are missing). */
  builtDigest(): string | undefined {
    const db = this.db.connection;
    db.exec(tables);
    const value = db.exec("SELECT value FROM curation_meta WHERE key = 'log_digest'")[0]?.values[0]?.[0];
    return value === undefined || value === null ? undefined : blobHex(value);
  }

  /** Replaces the tables' rows with `state`, in one transaction, and records the change for caches and the next save. */
  materialize(state: CurationState, digest: string): void {
    const db = this.db.connection;
    db.exec(tables);
    db.exec('BEGIN');
    try {
      db.exec('DELETE FROM curation_pins; DELETE FROM curation_memory; DELETE FROM curation_memory_search; DELETE FROM curation_labels;');
      const pin = db.prepare('INSERT INTO curation_pins VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      for (const record of state.pins) {
        const range = record.target === 'range' ? [record.startLine, record.endLine] : [null, null];
        const name = record.target === 'declaration' ? record.qualifiedName : null;
        pin.run([
          record.id,
          record.target,
          record.path,
          ...range,
          name,
          optionalHexBlob(record.textHash ?? null),
          record.createdAt,
          record.removedBy ?? null,
          record.removedAt ?? null,
        ]);
      }
      pin.free();
      const memory = db.prepare('INSERT INTO curation_memory VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      const search = db.prepare('INSERT INTO curation_memory_search(docid, claim) VALUES (?, ?)');
      state.memory.forEach((item, index) => {
        memory.run([
          index + 1,
          item.id,
          item.claim,
          item.key,
          item.createdAt,
          item.status,
          item.supersedes ?? null,
          item.supersededBy ?? null,
          item.reason ?? null,
          item.changedAt ?? null,
        ]);
        if (item.status === 'active') search.run([index + 1, item.claim]);
      });
      memory.free();
      search.free();
      const label = db.prepare('INSERT INTO curation_labels VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (const record of state.labels)
        label.run([
          record.id,
          record.at,
          record.label,
          record.source,
          hexBlob(record.candidate),
          hexBlob(record.query),
          JSON.stringify(record.features),
        ]);
      label.free();
      // Hashes are stored as bytes, like every hash in the index (test/core/compactSchema.test.ts).
      db.run("INSERT OR REPLACE INTO curation_meta(key, value) VALUES ('log_digest', ?)", [hexBlob(digest)]);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
    this.db.markChanged();
  }

  /** Every memory item, oldest first. */
  memoryRows(): MemoryRow[] {
    return (this.db.connection.exec(`SELECT ${memoryColumns} FROM curation_memory ORDER BY created_at, docid`)[0]?.values ?? []).map(
      toMemory,
    );
  }

  /**
   * Active memory items whose claim holds any of `words` (full text over the claims), most words
   * matched first, then newest, then id. Superseded, invalid and expired items are never in the
   * search table, so they cannot be returned.
   */
  relevantMemory(words: readonly string[], limit: number): Array<MemoryRow & { matched: number }> {
    const terms = [...new Set(words.map((word) => word.toLowerCase()).filter((word) => /^[\p{L}\p{N}_]{2,}$/u.test(word)))].slice(0, 32);
    if (terms.length === 0) return [];
    const match = terms.map((term) => `"${term}"`).join(' OR ');
    const rows =
      this.db.connection.exec(
        `SELECT m.${memoryColumns.split(', ').join(', m.')}, matchinfo(curation_memory_search, 'pcx') FROM curation_memory_search s
       JOIN curation_memory m ON m.docid = s.docid WHERE curation_memory_search MATCH ? AND m.status = 'active'`,
        [match],
      )[0]?.values ?? [];
    return rows
      .map((row) => ({ ...toMemory(row), matched: matchedPhrases(row[9]) }))
      .sort((a, b) => b.matched - a.matched || (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? -1 : 1))
      .slice(0, limit);
  }
}

/** How many of the query's phrases the row holds, from `matchinfo('pcx')`: per phrase, hits in this row's one column. */
function matchedPhrases(info: unknown): number {
  if (!(info instanceof Uint8Array)) return 0;
  const values = new Uint32Array(info.buffer, info.byteOffset, info.byteLength >>> 2);
  const phrases = values[0];
  let matched = 0;
  for (let phrase = 0; phrase < phrases; phrase++) if (values[2 + phrase * 3] > 0) matched++;
  return matched;
}
