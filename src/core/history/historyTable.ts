import type { Database } from '../tables/database';
import { blobHex, hexBlob } from '../tables/hexBlob';

/**
 * The history part of the index: earlier commits of the checkout's HEAD, their messages'
 * words and the paths they changed. A commit's id is its 20 (or 32) bytes, never hex text; its
 * message is stored only as its subject (for display) and its stemmed words in `history_search`
 * (FTS4, docid = the commit's row id); each changed path is stored once, in `history_paths`,
 * and linked by integer id. No author, committer, e-mail or date is stored. Commit row ids grow
 * from the oldest commit read to the newest, so the newest commits are the highest ids. The
 * tables are created when the first commits are stored (`CREATE TABLE IF NOT EXISTS`, as the
 * curation part's), so an index without git history carries none of their pages and an index
 * written before they existed gets them without a schema change.
 */
const historySchema = `
CREATE TABLE IF NOT EXISTS history_meta(key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS history_commits(id INTEGER PRIMARY KEY, hash BLOB NOT NULL, subject TEXT NOT NULL, file_count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS history_paths(id INTEGER PRIMARY KEY, path TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS history_changes(
  commit_id INTEGER NOT NULL, path_id INTEGER NOT NULL, PRIMARY KEY (commit_id, path_id)) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS history_search USING fts4(terms, tokenize=unicode61 "tokenchars=_");
`;

/** A commit ready to store: its message already cleaned and checked for secrets (see `historySync.ts`). */
export interface HistoryCommit {
  hash: string;
  subject: string;
  /** The message's stemmed words, space-separated (`messageText.ts`). */
  terms: string;
  paths: string[];
  /** How many paths the commit changed (its links may be fewer: see `maxLinkedPaths`). */
  fileCount: number;
}

/** A stored commit as search reads it. */
export interface StoredCommit {
  id: number;
  hash: string;
  subject: string;
  fileCount: number;
}

/**
 * Commits that changed more paths than this get no links: a reformat, a license header or a
 * vendored update says nothing about any one file, and would add thousands of rows.
 */
export const maxLinkedPaths = 100;

export class HistoryTable {
  readonly tables = [
    'history_meta',
    'history_commits',
    'history_paths',
    'history_changes',
    'history_search',
    'history_search_content',
    'history_search_segments',
    'history_search_segdir',
    'history_search_docsize',
    'history_search_stat',
  ] as const;

  /** Path ids by path, read from `history_paths` at the first write after an open; dropped at a rollback. */
  private pathIds: Map<string, number> | undefined;
  /** Paths by id, for search (cached until the tables change). */
  private pathsById: { revision: number; map: Map<number, string> } | undefined;

  /** Whether the tables exist (undefined: not looked up since the open or the last rollback). */
  private created: boolean | undefined;
  /** Why the part is empty, and the HEAD it is the empty history of, when it has no tables to say so in (this session only). */
  private sessionNote: string | undefined;
  private sessionHead: string | undefined;

  constructor(private readonly db: Database) {
    db.onRollback(() => {
      this.pathIds = undefined;
      this.pathsById = undefined;
      this.created = undefined;
    });
  }

  private get exists(): boolean {
    // A pragma, not a scan of sqlite_master: the table's columns, none when it does not exist.
    this.created ??= this.db.all('PRAGMA table_info(history_commits)').length > 0;
    return this.created;
  }

  private create(): void {
    this.db.exec(historySchema);
    this.created = true;
  }

  /** The HEAD the stored commits are the ancestors of, or undefined when the part is empty. */
  head(): string | undefined {
    if (!this.exists) return this.sessionHead;
    const value = this.db.one("SELECT value FROM history_meta WHERE key = 'head'")?.[0];
    return value instanceof Uint8Array ? blobHex(value) : undefined;
  }

  /** Why the part is empty or partial (no git, a shallow clone, git failing), or undefined. */
  note(): string | undefined {
    if (!this.exists) return this.sessionNote;
    const value = this.db.one("SELECT value FROM history_meta WHERE key = 'note'")?.[0];
    return typeof value === 'string' ? value : undefined;
  }

  /** Row ids are consecutive (commits are appended, and only the oldest are dropped), so the ends of the id range count them without a scan. */
  commitCount(): number {
    if (!this.exists) return 0;
    const [newest, oldest] = this.db.one('SELECT (SELECT max(id) FROM history_commits), (SELECT min(id) FROM history_commits)') ?? [];
    return newest === null || newest === undefined ? 0 : Number(newest) - Number(oldest) + 1;
  }

  /**
   * Empties the part, keeping `note` (why). Nothing is written when it is empty already with that
   * note, or has no tables (the note is then kept for this session: an index without history
   * carries no history pages).
   */
  clear(note: string | undefined): void {
    this.sessionNote = note;
    this.sessionHead = undefined;
    if (!this.exists) return;
    if (this.head() === undefined && this.note() === note && this.commitCount() === 0) return;
    this.db.transaction(() => {
      this.deleteAll();
      if (note !== undefined) this.db.run("INSERT INTO history_meta(key, value) VALUES ('note', ?)", [note]);
    });
  }

  /** Replaces every stored commit with `commits` (oldest first), the ancestors of `head`. */
  replaceAll(commits: HistoryCommit[], head: string, note?: string): void {
    this.sessionNote = note;
    this.sessionHead = head;
    // No commit to keep (only a root commit, say): no tables are made for an empty history.
    if (commits.length === 0 && !this.exists) return;
    this.db.transaction(() => {
      this.create();
      this.deleteAll();
      this.insert(commits);
      this.setHead(head, note);
    });
  }

  /** Adds `commits` (oldest first, all newer than the stored ones), records `head`, and keeps only the newest `maxCommits`. */
  append(commits: HistoryCommit[], head: string, maxCommits: number): number {
    this.sessionNote = undefined;
    this.sessionHead = head;
    if (commits.length === 0 && !this.exists) return 0;
    return this.db.transaction(() => {
      this.create();
      this.insert(commits);
      this.setHead(head, undefined);
      const newest = Number(this.db.one('SELECT max(id) FROM history_commits')?.[0] ?? 0);
      const cut = newest - maxCommits;
      const dropped = Number(this.db.one('SELECT count(*) FROM history_commits WHERE id <= ?', [cut])?.[0] ?? 0);
      if (dropped > 0) {
        this.db.run('DELETE FROM history_changes WHERE commit_id <= ?', [cut]);
        this.db.run('DELETE FROM history_search WHERE docid <= ?', [cut]);
        this.db.run('DELETE FROM history_commits WHERE id <= ?', [cut]);
      }
      return dropped;
    });
  }

  private deleteAll(): void {
    this.db.exec(
      'DELETE FROM history_meta; DELETE FROM history_commits; DELETE FROM history_paths; DELETE FROM history_changes; DELETE FROM history_search;',
    );
    this.pathIds = new Map();
    this.pathsById = undefined;
  }

  private setHead(head: string, note: string | undefined): void {
    this.db.run("INSERT OR REPLACE INTO history_meta(key, value) VALUES ('head', ?)", [hexBlob(head)]);
    this.db.run("DELETE FROM history_meta WHERE key = 'note'");
    if (note !== undefined) this.db.run("INSERT INTO history_meta(key, value) VALUES ('note', ?)", [note]);
  }

  private insert(commits: HistoryCommit[]): void {
    const ids = this.loadPathIds();
    let nextPathId = Math.max(0, ...ids.values()) + 1;
    for (const commit of commits) {
      this.db.run('INSERT INTO history_commits(hash, subject, file_count) VALUES (?, ?, ?)', [
        hexBlob(commit.hash),
        commit.subject,
        commit.fileCount,
      ]);
      const id = this.db.lastInsertRowid();
      this.db.run('INSERT INTO history_search(docid, terms) VALUES (?, ?)', [id, commit.terms]);
      if (commit.fileCount > maxLinkedPaths) continue;
      for (const path of new Set(commit.paths)) {
        let pathId = ids.get(path);
        if (pathId === undefined) {
          pathId = nextPathId++;
          ids.set(path, pathId);
          this.db.run('INSERT INTO history_paths(id, path) VALUES (?, ?)', [pathId, path]);
        }
        this.db.run('INSERT INTO history_changes(commit_id, path_id) VALUES (?, ?)', [id, pathId]);
      }
    }
  }

  private loadPathIds(): Map<string, number> {
    if (!this.pathIds) {
      this.pathIds = new Map();
      for (const [id, path] of this.db.all('SELECT id, path FROM history_paths')) this.pathIds.set(String(path), Number(id));
    }
    return this.pathIds;
  }

  /**
   * The commits whose messages match any of `terms` (stemmed words), each with its FTS4
   * matchinfo 'pcnalx' (for bm25); an empty list when there are none or FTS4 rejects the query.
   */
  matching(terms: string[]): Array<{ id: number; info: Uint32Array }> {
    if (terms.length === 0 || !this.exists) return [];
    const query = terms.map((term) => `"${term.replace(/"/g, '')}"`).join(' OR ');
    const rows = this.db.once("SELECT docid, matchinfo(history_search, 'pcnalx') FROM history_search WHERE history_search MATCH ?", [
      query,
    ]);
    return rows.map(([id, info]) => {
      const bytes = info as Uint8Array;
      // A copy: the blob's offset need not be 4-byte aligned.
      const words = new Uint32Array(bytes.length / 4);
      new Uint8Array(words.buffer).set(bytes);
      return { id: Number(id), info: words };
    });
  }

  /** Stored commits by row id. */
  commits(ids: number[]): StoredCommit[] {
    if (ids.length === 0 || !this.exists) return [];
    const rows = this.db.list(
      `SELECT id, hash, subject, file_count FROM history_commits WHERE id IN (${ids.map(() => '?').join(',')})`,
      ids,
    );
    return rows.map(([id, hash, subject, fileCount]) => ({
      id: Number(id),
      hash: blobHex(hash),
      subject: String(subject),
      fileCount: Number(fileCount),
    }));
  }

  /** The paths a stored commit changed (none when it changed more than `maxLinkedPaths`). */
  pathsOf(commitId: number): string[] {
    if (!this.exists) return [];
    const byId = this.pathMap();
    return this.db
      .all('SELECT path_id FROM history_changes WHERE commit_id = ?', [commitId])
      .map(([pathId]) => byId.get(Number(pathId)))
      .filter((path): path is string => path !== undefined);
  }

  private pathMap(): Map<number, string> {
    if (!this.pathsById || this.pathsById.revision !== this.db.revision) {
      const map = new Map<number, string>();
      for (const [id, path] of this.db.all('SELECT id, path FROM history_paths')) map.set(Number(id), String(path));
      this.pathsById = { revision: this.db.revision, map };
    }
    return this.pathsById.map;
  }

  /** Every stored commit's hash, oldest first (tests and health). */
  hashes(): string[] {
    if (!this.exists) return [];
    return this.db.all('SELECT hash FROM history_commits ORDER BY id').map(([hash]) => blobHex(hash));
  }
}
