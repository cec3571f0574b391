import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import type { ProjectEngine } from '../../src/core/engine';
import { nodePorts, type EnginePorts } from '../../src/core/ports';
import {
  bytesWritten,
  countingDatabaseFileIo,
  emptyWriteCounts,
  nodeDatabaseFileIo,
  type DatabaseFileIo,
  type WritableFile,
} from '../../src/core/storage/fileIo';
import { journalPathOf } from '../../src/core/storage/pageJournal';
import { loadSqlite } from '../../src/core/sqlite';
import { MemoryFile } from '../../src/core/storage/wasmFiles';
import { IndexStore } from '../../src/core/store';
import { fixtureFactory, openEngine, tempFolderFactory, type Fixture } from './fixtures';

/**
 * Saves write the changed pages in place through a rollback journal (issue 15, point 5): the
 * bytes a one-file edit writes are bounded by the pages it changed (counted through the
 * `databaseFiles` port), a save that dies at any step leaves a file that opens as the old or the
 * new index, and a reopened file is exactly what was written.
 */

const fixture = fixtureFactory();
const folder = tempFolderFactory('pk-paged-');

/** A project of `count` files of distinct words, large enough that one file is a small part of its index. */
function project(count: number): Fixture {
  const files: Record<string, string> = {};
  for (let index = 0; index < count; index++) {
    const body = Array.from(
      { length: 40 },
      (_, line) => `export function handler${index}x${line}(value${line}: number): number {\n  return value${line} * ${line + index};\n}\n`,
    );
    files[`src/module${index}.ts`] = `// Module ${index} handles the request stage ${index}.\n${body.join('')}`;
  }
  return fixture(files);
}

function ports(io: DatabaseFileIo): EnginePorts {
  return { ...nodePorts(), databaseFiles: io };
}

/** Every file's path and hash, the index's content as far as these tests compare it. */
function contentOf(store: IndexStore): string {
  return [...store.catalog.files().values()].map((file) => `${file.path} ${file.sha256}`).join('\n');
}

async function storedContent(dbPath: string, root: string): Promise<{ content: string; discarded?: string }> {
  const { store, discardedReason } = await IndexStore.open(dbPath, root, nodePorts());
  try {
    return { content: contentOf(store), discarded: discardedReason };
  } finally {
    store.close();
  }
}

/**
 * A port whose `failAt`-th step (an open, write, flush, truncate, rename, removal or directory
 * flush) fails as a crash would: a write stops halfway, and from then on every step fails, so
 * nothing the dying save would still do reaches the disk. Reads go through: they change nothing.
 */
function dyingIo(failAt: number): { io: DatabaseFileIo; steps: () => number } {
  let steps = 0;
  let dead = false;
  const step = async <T>(what: string, work: () => Promise<T>, partial?: () => Promise<void>): Promise<T> => {
    if (dead) throw new Error(`the process is gone (${what})`);
    steps++;
    if (steps === failAt) {
      dead = true;
      await partial?.();
      throw new Error(`injected crash at step ${failAt} (${what})`);
    }
    return work();
  };
  const wrap = (file: WritableFile): WritableFile => ({
    write: (bytes, position) =>
      step(
        'write',
        () => file.write(bytes, position),
        () => file.write(bytes.subarray(0, bytes.length >>> 1), position),
      ),
    read: (into, position) => file.read(into, position),
    truncate: (size) => step('truncate', () => file.truncate(size)),
    sync: () => step('sync', () => file.sync()),
    size: () => file.size(),
    inode: () => file.inode(),
    close: () => file.close(),
  });
  const io: DatabaseFileIo = {
    open: (filePath, mode) => step(`open ${path.basename(filePath)}`, async () => wrap(await nodeDatabaseFileIo.open(filePath, mode))),
    rename: (from, to) => step('rename', () => nodeDatabaseFileIo.rename(from, to)),
    remove: (filePath) => step(`remove ${path.basename(filePath)}`, () => nodeDatabaseFileIo.remove(filePath)),
    syncDirectory: (directory) => step('sync directory', () => nodeDatabaseFileIo.syncDirectory(directory)),
    exists: (filePath) => nodeDatabaseFileIo.exists(filePath),
    signature: (filePath) => nodeDatabaseFileIo.signature(filePath),
  };
  return { io, steps: () => steps };
}

async function closeQuietly(engine: ProjectEngine): Promise<void> {
  await engine.close().catch(() => undefined);
}

describe('saves write changed pages in place', () => {
  test('the file calls of sql.js are identified, so saves are page-level here', async () => {
    await loadSqlite();
    assert.equal(MemoryFile.available, true);
  });

  test('a one-file edit writes only its changed pages (and their journal); no change writes nothing; reopening gives the bytes written', async () => {
    // Big enough that a one-file edit's fixed cost is small beside the index (the compact schema
    // made 120 files' index 344 KB, near the edit's own 30 pages).
    const files = project(480);
    const dbPath = path.join(folder(), 'index.sqlite');
    const counts = emptyWriteCounts();
    const engine = await openEngine(files.root, { dbPath, ports: ports(countingDatabaseFileIo(nodeDatabaseFileIo, counts)) });
    await engine.sync();
    const databaseBytes = fs.statSync(dbPath).size;
    assert.equal(engine.store.lastSave?.mode, 'whole', 'a new index is written whole');
    assert.equal(counts.wholeBytes, databaseBytes);

    Object.assign(counts, emptyWriteCounts());
    await engine.sync();
    assert.equal(bytesWritten(counts), 0, 'a sync that changed nothing writes nothing');

    files.edit('src/module7.ts', '// Module 7 now handles the zebra stage.\nexport const zebraStage = 7;\n');
    await engine.sync();
    const save = engine.store.lastSave;
    assert.equal(save?.mode, 'pages');
    assert.equal(counts.wholeBytes, 0);
    assert.equal(counts.inPlaceBytes, save.changedBytes, 'exactly the changed pages are written in place');
    // The journal holds the old bytes of those pages (never more), plus headers and a checksum.
    assert.ok(counts.journalBytes <= save.changedBytes + 4096, `journal ${counts.journalBytes} for ${save.changedBytes}`);
    assert.ok(save.changedBytes % 4096 === 0 && save.changedBytes > 0);
    // About 16 pages here (a row or two in each table and index, one new full-text segment): a
    // fixed amount per file, where a whole save writes the whole index.
    assert.ok(
      bytesWritten(counts) * 4 < databaseBytes,
      `${bytesWritten(counts)} bytes written for a one-file edit of a ${databaseBytes}-byte index`,
    );
    assert.ok(!fs.existsSync(journalPathOf(dbPath)), 'the journal is removed once the pages are written');

    const inMemory = Buffer.from(engine.store.exportBytes());
    assert.ok(fs.readFileSync(dbPath).equals(inMemory), 'the file on disk is the database in memory, byte for byte');
    const reopened = await IndexStore.open(dbPath, files.root, nodePorts());
    assert.equal(reopened.loaded, true);
    assert.ok(Buffer.from(reopened.store.exportBytes()).equals(inMemory), 'reopening reads back exactly what was written');
    assert.equal(contentOf(reopened.store), contentOf(engine.store));
    assert.match(contentOf(reopened.store), /src\/module7\.ts/);
    reopened.store.close();
    await engine.close();
  });

  test('a file its last save sealed opens without the integrity pass over every page; any other write brings the pass back', async () => {
    const files = project(240);
    const dbPath = path.join(folder(), 'index.sqlite');
    const engine = await openEngine(files.root, { dbPath });
    await engine.sync();
    files.edit('src/module5.ts', 'export const sealedStage = 5;\n');
    await engine.sync();
    assert.equal(engine.store.lastSave?.mode, 'pages');
    const written = Buffer.from(engine.store.exportBytes());
    await engine.close();
    const size = fs.statSync(dbPath).size;

    const readAtOpen = async (): Promise<{ loaded: boolean; baseReads: number; content: string }> => {
      const { store, loaded } = await IndexStore.open(dbPath, files.root, nodePorts());
      try {
        return { loaded, baseReads: store.paging?.baseReads ?? -1, content: contentOf(store) };
      } finally {
        store.close();
      }
    };
    const sealed = await readAtOpen();
    assert.equal(sealed.loaded, true);
    assert.ok(sealed.baseReads * 4 < size, `a sealed open read ${sealed.baseReads} of ${size} bytes`);
    assert.match(sealed.content, /src\/module5\.ts/);

    // The same bytes written by another program: nothing vouches for them, so every page is checked.
    fs.writeFileSync(dbPath, written);
    const rewritten = await readAtOpen();
    assert.equal(rewritten.loaded, true);
    assert.ok(rewritten.baseReads >= size * 0.9, `an unsealed open read ${rewritten.baseReads} of ${size} bytes`);
    assert.equal(rewritten.content, sealed.content);
  });

  for (const kind of ['pages', 'whole'] as const) {
    test(`a ${kind} save that dies at any step leaves a valid index with the old or the new content`, async () => {
      const files = project(60);
      const base = path.join(folder(), 'index.sqlite');
      const first = await openEngine(files.root, { dbPath: base });
      await first.sync();
      await first.close();
      const oldContent = (await storedContent(base, files.root)).content;
      // A one-file edit saves pages; rewriting every file changes most pages, which saves the whole file.
      const change = () => {
        if (kind === 'pages') files.edit('src/module3.ts', 'export const replacedStage = 3;\n');
        // Every file rewritten at its full size with new words: most pages of the compact index change.
        else
          for (let index = 0; index < 60; index++)
            files.edit(
              `src/module${index}.ts`,
              Array.from(
                { length: 40 },
                (_, line) => `export const rewritten${index}z${line} = 'stage ${line * 7 + index} of the new build';\n`,
              ).join(''),
            );
      };
      // Puts every file back as it was indexed, content and mtime, so each attempt makes the same change.
      const snapshot = folder();
      const stats = Array.from({ length: 60 }, (_, index) => {
        fs.copyFileSync(files.path(`src/module${index}.ts`), path.join(snapshot, `${index}`));
        return fs.statSync(files.path(`src/module${index}.ts`));
      });
      const undo = () => {
        for (let index = 0; index < 60; index++) {
          fs.copyFileSync(path.join(snapshot, `${index}`), files.path(`src/module${index}.ts`));
          fs.utimesSync(files.path(`src/module${index}.ts`), stats[index].atime, stats[index].mtime);
        }
      };

      // A save that does not die, to learn its steps and the new content.
      const reference = path.join(folder(), 'index.sqlite');
      fs.copyFileSync(base, reference);
      const counting = dyingIo(Number.POSITIVE_INFINITY);
      const whole = await openEngine(files.root, { dbPath: reference, ports: ports(counting.io) });
      change();
      await whole.sync();
      assert.equal(whole.store.lastSave?.mode, kind);
      const stepsOfSave = counting.steps();
      await whole.close();
      const newContent = (await storedContent(reference, files.root)).content;
      assert.notEqual(newContent, oldContent);
      assert.ok(stepsOfSave >= 4, `a save takes ${stepsOfSave} steps`);
      undo();

      const seen = new Set<string>();
      for (let failAt = 1; failAt <= stepsOfSave; failAt++) {
        const dbPath = path.join(folder(), 'index.sqlite');
        fs.copyFileSync(base, dbPath);
        const { io } = dyingIo(failAt);
        const engine = await openEngine(files.root, { dbPath, ports: ports(io) });
        change();
        await assert.rejects(engine.sync(), /injected crash|the process is gone/, `step ${failAt}`);
        await closeQuietly(engine);
        undo();
        const after = await storedContent(dbPath, files.root);
        assert.equal(after.discarded, undefined, `step ${failAt}: the index opens without being discarded`);
        assert.ok(after.content === oldContent || after.content === newContent, `step ${failAt}: old or new content`);
        seen.add(after.content === oldContent ? 'old' : 'new');
        const left = fs.readdirSync(path.dirname(dbPath)).filter((name) => name !== 'index.sqlite');
        assert.deepEqual(left, [], `step ${failAt}: the next open undid the journal and removed the temporary file`);
      }
      assert.ok(seen.has('old'), 'a crash before the commit keeps the old content');
      if (kind === 'whole') assert.ok(seen.has('new'), 'a crash after the rename keeps the new content');
    });
  }

  test('a reader that finds a dead save’s journal while the lock is held reads the old content without waiting; the next writer undoes it', async () => {
    const files = project(60);
    const dbPath = path.join(folder(), 'index.sqlite');
    const first = await openEngine(files.root, { dbPath });
    await first.sync();
    await first.close();
    const oldBytes = fs.readFileSync(dbPath);
    const oldContent = (await storedContent(dbPath, files.root)).content;

    // Find the step that writes the first page in place, and die halfway through it.
    let failAt = 0;
    for (let candidate = 1; candidate < 64 && failAt === 0; candidate++) {
      fs.writeFileSync(dbPath, oldBytes);
      const { io } = dyingIo(candidate);
      const engine = await openEngine(files.root, { dbPath, ports: ports(io) });
      files.edit('src/module5.ts', `export const tornStage = ${candidate};\n`);
      await engine.sync().catch(() => undefined);
      await closeQuietly(engine);
      if (fs.existsSync(journalPathOf(dbPath)) && !fs.readFileSync(dbPath).equals(oldBytes)) failAt = candidate;
      else fs.rmSync(journalPathOf(dbPath), { force: true });
    }
    assert.ok(failAt > 0, 'some step leaves a torn file and a whole journal');

    // Another live process holds the lock: the reader may not undo the journal on disk, and does not wait.
    const lock = `${dbPath}.lock`;
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString(), token: 'held' }));
    const reader = await IndexStore.open(dbPath, files.root, nodePorts(), { lockTimeoutMs: 60_000 });
    assert.equal(reader.discardedReason, undefined);
    assert.equal(contentOf(reader.store), oldContent, 'the journal’s old pages over the torn file give the old index');
    reader.store.close();
    assert.ok(fs.existsSync(journalPathOf(dbPath)), 'the reader left the file and journal alone');

    fs.rmSync(lock);
    const writer = await IndexStore.open(dbPath, files.root, nodePorts());
    writer.store.close();
    assert.ok(!fs.existsSync(journalPathOf(dbPath)), 'an open that can take the lock undoes the journal');
    assert.ok(fs.readFileSync(dbPath).equals(oldBytes), 'the undone file is the old file, byte for byte');
  });
});
