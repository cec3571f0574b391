import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadSqlite } from '../../src/core/sqlite';
import { Fixture, openEngine, recordingPorts } from './fixtures';

/**
 * The database file (issue 13): `--db` opens or replaces only a missing or empty file or an
 * index of ours, writers lock and never lose each other's updates, and no temporary file
 * outlives a failed or killed save. The CLI runs as child processes on real files.
 */

const repository = path.resolve(__dirname, '..', '..', '..');
const cli = path.join(repository, 'dist', 'cli.js');
const created: string[] = [];
after(() => created.forEach((folder) => fs.rmSync(folder, { recursive: true, force: true })));

function folder(prefix: string): string {
  const made = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(made);
  return made;
}

function project(files: Record<string, string> = {}): Fixture {
  const fixture = new Fixture({
    'src/session.ts': 'export class Session {\n  send(message: string): void {\n    console.log("sending message", message);\n  }\n}\n',
    'src/util.py': 'def helper():\n    return "help text"\n',
    ...files,
  });
  fixture.initGit();
  created.push(fixture.root);
  return fixture;
}

function pk(args: string[], env: NodeJS.ProcessEnv = {}) {
  // A bound on every run, so a hang (a FIFO opened for reading) fails the test instead of stalling it.
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, signal: result.signal };
}

/** A running `pk` child whose stderr is collected as it arrives. */
function pkChild(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; stderr: () => string; done: Promise<number | null> } {
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout?.resume();
  const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stderr: () => stderr, done };
}

/** Waits for `condition` by polling (a bounded wait on a condition, never a fixed sleep). */
async function waitFor(what: string, condition: () => boolean, limitMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function searchPaths(root: string, db: string, query: string): string[] {
  const search = pk(['search', query, '--root', root, '--db', db, '--json']);
  assert.equal(search.code, 0, search.stderr);
  return (JSON.parse(search.stdout) as { results: Array<{ path: string }> }).results.map((result) => result.path);
}

function assertRefusedInOneLine(result: { code: number | null; stderr: string }, label: string): void {
  assert.equal(result.code, 1, `${label}: ${result.stderr}`);
  assert.equal(result.stderr.trim().split('\n').length, 1, `${label}: ${result.stderr}`);
  assert.match(result.stderr, /^pk: Refusing to use .* it was left untouched\.$/m, label);
}

async function foreignSqlite(file: string, statements: string): Promise<Buffer> {
  const SQL = await loadSqlite();
  const db = new SQL.Database();
  db.exec(statements);
  const bytes = Buffer.from(db.export());
  db.close();
  fs.writeFileSync(file, bytes);
  return bytes;
}

describe('--db opens or replaces only a missing or empty file or an index of ours', () => {
  test('a foreign SQLite database, a text file, a FIFO, a directory, a symbolic link: refused, byte-identical afterwards', async () => {
    const fixture = project();
    const place = folder('pk-dbfile-');
    const cases: Array<{ label: string; db: string; unchanged: () => void }> = [];

    const foreign = path.join(place, 'app.db');
    const users = "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ada');";
    const foreignBytes = await foreignSqlite(foreign, users);
    cases.push({ label: 'foreign SQLite', db: foreign, unchanged: () => assert.ok(fs.readFileSync(foreign).equals(foreignBytes)) });

    // Another program's meta table with a schema version is still not ours.
    const lookalike = path.join(place, 'lookalike.db');
    const meta = "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema_version', '2');";
    const lookalikeBytes = await foreignSqlite(lookalike, meta);
    const lookalikeUnchanged = () => assert.ok(fs.readFileSync(lookalike).equals(lookalikeBytes));
    cases.push({ label: 'foreign meta table', db: lookalike, unchanged: lookalikeUnchanged });

    const text = path.join(place, 'notes.txt');
    fs.writeFileSync(text, 'my notes\nline two\n');
    cases.push({ label: 'text file', db: text, unchanged: () => assert.equal(fs.readFileSync(text, 'utf8'), 'my notes\nline two\n') });

    // A FIFO stands for /dev/null and every other non-regular file: the test never touches a real device.
    const fifo = path.join(place, 'pipe');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    cases.push({ label: 'FIFO', db: fifo, unchanged: () => assert.ok(fs.lstatSync(fifo).isFIFO()) });

    const directory = path.join(place, 'folder');
    fs.mkdirSync(directory);
    fs.writeFileSync(path.join(directory, 'kept.txt'), 'kept');
    cases.push({ label: 'directory', db: directory, unchanged: () => assert.deepEqual(fs.readdirSync(directory), ['kept.txt']) });

    // A symbolic link is refused even when it points at a regular file that could be replaced.
    const target = path.join(place, 'target.txt');
    fs.writeFileSync(target, '');
    const link = path.join(place, 'link.sqlite');
    fs.symlinkSync(target, link);
    cases.push({
      label: 'symbolic link',
      db: link,
      unchanged: () => {
        assert.ok(fs.lstatSync(link).isSymbolicLink());
        assert.equal(fs.readlinkSync(link), target);
        assert.equal(fs.readFileSync(target).length, 0);
      },
    });

    const listing = fs.readdirSync(place).sort();
    for (const { label, db, unchanged } of cases) {
      assertRefusedInOneLine(pk(['index', fixture.root, '--db', db]), `index, ${label}`);
      assertRefusedInOneLine(pk(['search', 'Session', '--root', fixture.root, '--db', db]), `search, ${label}`);
      unchanged();
    }
    // Nothing was created beside them either (no lock or temporary file left).
    assert.deepEqual(fs.readdirSync(place).sort(), listing);
  });

  test('an empty file becomes the index; an index of ours without the product row (older) is recognised', async () => {
    const fixture = project();
    const db = path.join(folder('pk-dbfile-'), 'index.sqlite');
    fs.writeFileSync(db, '');
    const indexed = pk(['index', fixture.root, '--db', db, '--json']);
    assert.equal(indexed.code, 0, indexed.stderr);
    assert.deepEqual(searchPaths(fixture.root, db, 'Session'), ['src/session.ts']);

    // An index written before the product row: still ours, loaded as it is (nothing re-read).
    const SQL = await loadSqlite();
    const older = new SQL.Database(fs.readFileSync(db));
    older.run("DELETE FROM meta WHERE key = 'product'");
    fs.writeFileSync(db, older.export());
    older.close();
    const again = pk(['index', fixture.root, '--db', db, '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((JSON.parse(again.stdout) as { reindexed: number }).reindexed, 0, 'loaded, not rebuilt');

    // An older schema version of ours is discarded and rebuilt, not refused.
    const oldSchema = new SQL.Database(fs.readFileSync(db));
    oldSchema.run("DELETE FROM meta WHERE key = 'product'");
    oldSchema.run("UPDATE meta SET value = '1' WHERE key = 'schema_version'");
    fs.writeFileSync(db, oldSchema.export());
    oldSchema.close();
    const rebuilt = pk(['index', fixture.root, '--db', db, '--json']);
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    assert.match(rebuilt.stderr, /discarded and will be rebuilt: schema version 1/);
    assert.equal((JSON.parse(rebuilt.stdout) as { reindexed: number }).reindexed, 2);
  });
});

describe('writers lock the database and never lose an update', () => {
  test("a writer that discovered before a marker was added and saves last keeps the other writer's marker", async () => {
    const fixture = project();
    const db = path.join(folder('pk-dbfile-'), 'index.sqlite');
    const control = folder('pk-pause-');
    // A has synced (no marker yet) and is about to save.
    const first = pkChild(['index', fixture.root, '--db', db], { PK_TEST_PAUSE_IN_SAVE: control, PK_TEST_PAUSE_POINT: 'before-lock' });
    await waitFor('the first writer to pause before its save', () => fs.existsSync(path.join(control, 'paused')));
    fixture.write('src/marker.ts', 'export const zebraMarkerValue = 1;\n');
    // B starts after the marker exists and saves first.
    const second = pk(['index', fixture.root, '--db', db]);
    assert.equal(second.code, 0, second.stderr);
    fs.writeFileSync(path.join(control, 'resume'), '');
    assert.equal(await first.done, 0, first.stderr());
    assert.equal(searchPaths(fixture.root, db, 'zebraMarkerValue')[0], 'src/marker.ts');
    const health = JSON.parse(pk(['health', '--root', fixture.root, '--db', db, '--json']).stdout) as { files: number };
    assert.equal(health.files, 3);
  });

  test("a second writer waits for the lock, re-reads the first one's index and adds the marker; a reader is served", async () => {
    const fixture = project();
    const place = folder('pk-dbfile-');
    const db = path.join(place, 'index.sqlite');
    assert.equal(pk(['index', fixture.root, '--db', db]).code, 0);
    fixture.write('src/early.ts', 'export const earlyValue = 1;\n');
    const control = folder('pk-pause-');
    // A holds the lock with its temporary file written.
    const first = pkChild(['index', fixture.root, '--db', db], { PK_TEST_PAUSE_IN_SAVE: control });
    await waitFor('the first writer to pause inside its save', () => fs.existsSync(path.join(control, 'paused')));
    assert.ok(fs.existsSync(`${db}.lock`), 'the lock is held during the save');
    const lock = JSON.parse(fs.readFileSync(`${db}.lock`, 'utf8')) as { pid: number; host: string };
    assert.equal(lock.pid, first.child.pid);
    assert.equal(lock.host, os.hostname());
    fixture.write('src/marker.ts', 'export const zebraMarkerValue = 1;\n');
    // A reader neither waits for nor disturbs the writer.
    assert.deepEqual(searchPaths(fixture.root, db, 'helper'), ['src/util.py']);
    const second = pkChild(['index', fixture.root, '--db', db]);
    await waitFor('the second writer to wait for the lock', () => second.stderr().includes('Waiting for the index'));
    assert.match(second.stderr(), new RegExp(`locked by pid ${first.child.pid} on `));
    fs.writeFileSync(path.join(control, 'resume'), '');
    assert.equal(await first.done, 0, first.stderr());
    assert.equal(await second.done, 0, second.stderr());
    assert.equal(searchPaths(fixture.root, db, 'zebraMarkerValue')[0], 'src/marker.ts');
    assert.equal(searchPaths(fixture.root, db, 'earlyValue')[0], 'src/early.ts');
    assert.deepEqual(fs.readdirSync(place), ['index.sqlite'], 'no lock or temporary file is left');
  });

  test('a stale lock (dead pid on this host) is taken over; a live one times out with a clear message, untouched', async () => {
    const fixture = project();
    const place = folder('pk-dbfile-');
    const dbPath = path.join(place, 'index.sqlite');
    const dead = spawnSync(process.execPath, ['-e', '']);
    assert.equal(dead.status, 0);
    const deadPid = dead.pid;
    const stale = { pid: deadPid, host: os.hostname(), since: new Date().toISOString(), token: 'dead' };
    fs.writeFileSync(`${dbPath}.lock`, JSON.stringify(stale));
    const engine = await openEngine(fixture.root, { dbPath });
    await engine.sync();
    await engine.close();
    assert.deepEqual(fs.readdirSync(place), ['index.sqlite']);

    // A lock held by a live process (this one) is waited for, then the save fails in one line.
    const live = JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString(), token: 'live' });
    fs.writeFileSync(`${dbPath}.lock`, live);
    const { ports, warnings } = recordingPorts();
    const blocked = await openEngine(fixture.root, { dbPath, ports, lockTimeoutMs: 300 });
    fixture.write('src/new.ts', 'export const added = 1;\n');
    const before = fs.readFileSync(dbPath);
    await assert.rejects(blocked.sync(), (error: Error) => {
      const expected =
        `^The index .* is locked by pid ${process.pid} on .*; gave up after 0\\.3 s ` +
        '\\(remove .*\\.lock if no such process runs\\)\\.$';
      assert.match(error.message, new RegExp(expected));
      return true;
    });
    assert.ok(
      warnings.some((warning) => warning.startsWith('Waiting for the index')),
      warnings.join('\n'),
    );
    assert.equal(fs.readFileSync(`${dbPath}.lock`, 'utf8'), live, 'the live lock is left alone');
    assert.ok(fs.readFileSync(dbPath).equals(before), 'nothing was written');
    fs.rmSync(`${dbPath}.lock`);
    await blocked.close();

    // A lock of another host is never taken over, even with a pid that is dead here.
    const remote = JSON.stringify({ pid: deadPid, host: `${os.hostname()}-elsewhere`, since: new Date().toISOString(), token: 'remote' });
    fs.writeFileSync(`${dbPath}.lock`, remote);
    const elsewhere = await openEngine(fixture.root, { dbPath, lockTimeoutMs: 200 });
    fixture.write('src/other.ts', 'export const other = 1;\n');
    await assert.rejects(elsewhere.sync(), /-elsewhere since/);
    assert.equal(fs.readFileSync(`${dbPath}.lock`, 'utf8'), remote);
    fs.rmSync(`${dbPath}.lock`);
    await elsewhere.close();
  });

  test('a long-lived engine whose file another writer replaced reloads it and syncs again instead of saving over it', async () => {
    const fixture = project();
    const dbPath = path.join(folder('pk-dbfile-'), 'index.sqlite');
    const longLived = await openEngine(fixture.root, { dbPath });
    await longLived.sync();
    // Another process indexes a file the long-lived engine has not seen.
    fixture.write('src/marker.ts', 'export const zebraMarkerValue = 1;\n');
    assert.equal(pk(['index', fixture.root, '--db', dbPath]).code, 0);
    // The engine's own edit, then its sync: it must not write its older copy over the marker.
    fixture.edit('src/util.py', 'def helper():\n    return "changed text"\n');
    const report = await longLived.sync();
    assert.deepEqual(report.errors, []);
    assert.equal(searchPaths(fixture.root, dbPath, 'zebraMarkerValue')[0], 'src/marker.ts');
    assert.equal(searchPaths(fixture.root, dbPath, '"changed text"')[0], 'src/util.py');
    await longLived.close();
  });
});

describe('temporary files never outlive a save', () => {
  test('a writer killed during its save leaves a temporary file and a stale lock that the next run removes', async () => {
    const fixture = project();
    const place = folder('pk-dbfile-');
    const db = path.join(place, 'index.sqlite');
    const control = folder('pk-pause-');
    const writer = pkChild(['index', fixture.root, '--db', db], { PK_TEST_PAUSE_IN_SAVE: control });
    await waitFor('the writer to pause inside its save', () => fs.existsSync(path.join(control, 'paused')));
    const during = fs.readdirSync(place);
    assert.ok(
      during.some((name) => /^index\.sqlite\.\d+\.[0-9a-f]{12}\.tmp$/.test(name)),
      during.join(', '),
    );
    assert.ok(during.includes('index.sqlite.lock'), during.join(', '));
    writer.child.kill('SIGKILL');
    await writer.done;
    const next = pk(['index', fixture.root, '--db', db]);
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(fs.readdirSync(place), ['index.sqlite']);
    assert.deepEqual(searchPaths(fixture.root, db, 'Session'), ['src/session.ts']);
  });

  test('opening sweeps only our own temporary-file names beside our database', async () => {
    const fixture = project();
    const place = folder('pk-dbfile-');
    const dbPath = path.join(place, 'index.sqlite');
    const ours = ['index.sqlite.4242.0123456789ab.tmp', 'index.sqlite.lock.4242.0123456789ab.stale'];
    const others = ['index.sqlite.tmp', 'index.sqlite.4242.xyz.tmp', 'other.sqlite.4242.0123456789ab.tmp', 'notes.4242.0123456789ab.tmp'];
    for (const name of [...ours, ...others]) fs.writeFileSync(path.join(place, name), name);
    // A directory with our pattern is not a file we wrote: it stays.
    fs.mkdirSync(path.join(place, 'index.sqlite.7.abcdefabcdef.tmp'));
    const engine = await openEngine(fixture.root, { dbPath });
    assert.deepEqual(fs.readdirSync(place).sort(), [...others, 'index.sqlite.7.abcdefabcdef.tmp'].sort());
    await engine.close();
  });

  test('a save that fails writing (file size limit, as a full disk would) removes its temporary file and keeps the old index', () => {
    const fixture = project();
    const place = folder('pk-dbfile-');
    const db = path.join(place, 'index.sqlite');
    assert.equal(pk(['index', fixture.root, '--db', db]).code, 0);
    const before = fs.readFileSync(db);
    fixture.write('src/more.ts', `${'export const more = "more text";\n'.repeat(200)}`);
    // SIGXFSZ ignored, so a write past the limit fails with EFBIG instead of killing the process.
    const limitKb = Math.floor(before.length / 1024 / 2);
    const script = `trap '' XFSZ; ulimit -f ${limitKb}; exec "$0" "$@"`;
    const limited = spawnSync('bash', ['-c', script, process.execPath, cli, 'index', fixture.root, '--db', db], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(limited.status, 1, limited.stderr);
    assert.equal(limited.stderr.trim().split('\n').length, 1, limited.stderr);
    assert.match(limited.stderr, /EFBIG|too large/i);
    assert.deepEqual(fs.readdirSync(place), ['index.sqlite'], 'no temporary file or lock is left');
    assert.ok(fs.readFileSync(db).equals(before), 'the old index is intact');
  });
});
