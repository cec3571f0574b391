import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import type { ProjectEngine } from '../../src/core/engine';
import { nodePorts, type EnginePorts } from '../../src/core/ports';
import { nodeDatabaseFileIo, type DatabaseFileIo } from '../../src/core/storage/fileIo';
import { journalPathOf } from '../../src/core/storage/pageJournal';
import { openFileBytes } from '../../src/core/storage/wasmFiles';
import { IndexStore } from '../../src/core/store';
import { allRows, fixtureFactory, openEngine, tempFolderFactory, type Fixture } from './fixtures';

/**
 * The database file is not held in memory (issue 15, point 3): pages SQLite has not written
 * since the last save are read from the file on disk when it asks for them, and the written
 * ones stay in memory up to a budget, past which they go to a spill file. These tests hold the
 * paged store to the answers of one kept wholly in memory, through saves that die and through
 * another process saving into the same file.
 */

const fixture = fixtureFactory();
const folder = tempFolderFactory('pk-ondemand-');

/** `count` files of distinct words, so the index is many times the smallest budget of written pages. */
function project(count: number): Fixture {
  const files: Record<string, string> = {};
  for (let index = 0; index < count; index++) {
    const body = Array.from(
      { length: 30 },
      (_, line) =>
        `export function stage${index}x${line}(input${line}: string): string {\n  return input${line} + 'step ${line * 3 + index}';\n}\n`,
    );
    files[`src/part${index}.ts`] = `// Part ${index} turns the request into stage ${index}.\n${body.join('')}`;
  }
  return fixture(files);
}

/** Node ports with a fixed clock (timestamps are part of the rows), recording what was logged. */
function fixedPorts(io: DatabaseFileIo = nodeDatabaseFileIo): { ports: EnginePorts; logged: string[] } {
  const logged: string[] = [];
  const log = {
    info: (line: string) => logged.push(line),
    warn: (line: string) => logged.push(line),
    error: (line: string) => logged.push(line),
  };
  return { ports: { ...nodePorts(), log, clock: { now: () => 1_780_000_000_000 }, databaseFiles: io }, logged };
}

const queries = ['stage12x4', 'request stage', 'input7', "'step 40'", 'turns the request into stage 31'];

async function answers(engine: ProjectEngine): Promise<string[]> {
  const lines: string[] = [];
  for (const query of queries) {
    const retrieval = await engine.search(query);
    lines.push(`${query}: ${retrieval.results.map((result) => `${result.path}:${result.startLine}-${result.endLine}`).join(' ')}`);
  }
  return lines;
}

/**
 * A port whose writes into the database file itself (not its journal or a temporary copy) fail
 * after the first: `once` fails only the second (the undo's writes go through), `always` every
 * one after the first (the undo fails too, so the journal stays). `off` writes everything.
 */
function failingInPlaceIo(): { io: DatabaseFileIo; set(mode: 'off' | 'once' | 'always'): void } {
  let mode: 'off' | 'once' | 'always' = 'off';
  let writes = 0;
  const io: DatabaseFileIo = {
    ...nodeDatabaseFileIo,
    async open(filePath, how) {
      const file = await nodeDatabaseFileIo.open(filePath, how);
      if (!filePath.endsWith('.sqlite')) return file;
      return {
        write: async (bytes, position) => {
          writes++;
          if ((mode === 'once' && writes === 2) || (mode === 'always' && writes >= 2))
            throw Object.assign(new Error('injected write failure'), { code: 'EIO' });
          await file.write(bytes, position);
        },
        read: (into, position) => file.read(into, position),
        truncate: (size) => file.truncate(size),
        sync: () => file.sync(),
        size: () => file.size(),
        inode: () => file.inode(),
        close: () => file.close(),
      };
    },
  };
  return {
    io,
    set(next) {
      mode = next;
      writes = 0;
    },
  };
}

describe('database pages are read on demand', () => {
  test('an index many times larger than the written pages kept in memory gives the rows and answers of one kept whole, before and after reopening', async () => {
    const files = project(360);
    const dbPath = path.join(folder(), 'index.sqlite');
    // The smallest budget (the store raises 0 to 16 pages, 64 KB): most written pages go to the spill file.
    const paged = await openEngine(files.root, { dbPath, ports: fixedPorts().ports, residentBytes: 0 });
    const whole = await openEngine(files.root, { ports: fixedPorts().ports });
    await paged.sync();
    await whole.sync();
    const size = fs.statSync(dbPath).size;
    const paging = paged.store.paging;
    assert.ok(paging, 'the store pages its file');
    assert.ok(size > 8 * 64 * 1024, `the index (${size} bytes) is many times the budget`);
    assert.ok(paging.spillWrites > 0, 'written pages went to the spill file');
    assert.equal(paging.residentBytes, 0, 'after the save, no written page is held in memory');
    assert.deepEqual(allRows(paged.store), allRows(whole.store));
    assert.deepEqual(await answers(paged), await answers(whole));
    assert.deepEqual(
      fs.readdirSync(path.dirname(dbPath)).filter((name) => name.endsWith('.tmp')),
      [],
      'the spill file has no name beside the database',
    );

    files.edit('src/part12.ts', "export function stage12x4(): string {\n  return 'moved';\n}\n");
    files.remove('src/part31.ts');
    await paged.sync();
    await whole.sync();
    assert.equal(paged.store.lastSave?.mode, 'pages');
    assert.deepEqual(allRows(paged.store), allRows(whole.store));
    assert.deepEqual(await answers(paged), await answers(whole));
    await paged.close();

    const reopened = await openEngine(files.root, { dbPath, ports: fixedPorts().ports, residentBytes: 0 });
    assert.equal(reopened.loadedFromDisk, true);
    assert.deepEqual(allRows(reopened.store), allRows(whole.store));
    assert.deepEqual(await answers(reopened), await answers(whole));
    await reopened.close();
    await whole.close();
  });

  test('a transaction whose rollback journal outgrows its budget keeps it out of MEMFS, spills it, rolls back exactly, and an emptied journal holds no memory', async () => {
    const files = project(240);
    const dbPath = path.join(folder(), 'index.sqlite');
    // The smallest budget (64 KB) for the database's written pages and so for its journal's.
    const engine = await openEngine(files.root, { dbPath, ports: fixedPorts().ports, residentBytes: 0 });
    await engine.sync();
    const database = engine.store.database;
    // FTS4's own check always flags this index (it holds each chunk's words once, see fullTextIndex.ts): compare, do not expect 'ok'.
    const integrity = (): string[] => database.exec('PRAGMA integrity_check')[0].values.map((row) => String(row[0]));
    const before = allRows(engine.store);
    const checkedBefore = integrity();
    database.exec('BEGIN');
    // secure_delete zeroes every freed page, so each one's old content goes into the journal.
    database.exec('DELETE FROM search_index_segments; DELETE FROM project_snippets');
    const during = engine.store.paging?.journal;
    const inMemfs = openFileBytes();
    database.exec('ROLLBACK');
    assert.ok(during, 'the journal is tracked beside the database');
    assert.equal(inMemfs, 0, 'no file of this database is in MEMFS, its journal included');
    assert.ok(during.residentBytes <= 64 * 1024, `${during.residentBytes} bytes of journal in memory`);
    assert.ok(during.spillWrites > 64 * 1024, `${during.spillWrites} bytes of journal spilled`);
    assert.equal(engine.store.paging?.journal?.residentBytes, 0, 'the emptied journal holds no memory');
    assert.deepEqual(allRows(engine.store), before, 'the rollback restored every row');
    assert.deepEqual(integrity(), checkedBefore, 'the b-trees check as before the transaction');
    files.edit('src/part3.ts', 'export const journalStage = 3;\n');
    await engine.sync();
    assert.equal((await engine.search('journalStage')).results[0]?.path, 'src/part3.ts', 'the index is written to after the rollback');
    await engine.close();
  });

  for (const undo of ['undone', 'left'] as const) {
    test(`a page save that dies after writing in place (its journal ${undo}) leaves the store answering from its own pages, and the next save writes them`, async () => {
      const files = project(60);
      const dbPath = path.join(folder(), 'index.sqlite');
      const failing = failingInPlaceIo();
      const paged = await openEngine(files.root, { dbPath, ports: fixedPorts(failing.io).ports });
      const whole = await openEngine(files.root, { ports: fixedPorts().ports });
      await paged.sync();
      await whole.sync();
      files.edit('src/part5.ts', "export const replacedStage = 'five';\n");
      files.edit('src/part50.ts', "export const replacedStage = 'fifty';\n");
      failing.set(undo === 'undone' ? 'once' : 'always');
      await assert.rejects(paged.sync(), /injected write failure/);
      await whole.sync();
      assert.equal(fs.existsSync(journalPathOf(dbPath)), undo === 'left', `the journal is ${undo === 'left' ? 'left' : 'removed'}`);
      assert.deepEqual(allRows(paged.store), allRows(whole.store), 'the store still answers with its own pages');
      assert.deepEqual(await answers(paged), await answers(whole));

      failing.set('off');
      await paged.sync();
      assert.ok(!fs.existsSync(journalPathOf(dbPath)));
      assert.deepEqual(allRows(paged.store), allRows(whole.store));
      await paged.close();
      const reopened = await IndexStore.open(dbPath, files.root, fixedPorts().ports);
      assert.equal(reopened.discardedReason, undefined);
      assert.deepEqual(allRows(reopened.store), allRows(whole.store), 'the file holds the edit');
      reopened.store.close();
      await whole.close();
    });
  }

  test('pages another process saved into the file in place are never mixed in: the reader stops reading it and opens it again', async () => {
    const files = project(120);
    const dbPath = path.join(folder(), 'index.sqlite');
    const first = await openEngine(files.root, { dbPath, ports: fixedPorts().ports });
    await first.sync();
    await first.close();

    const { ports, logged } = fixedPorts();
    const reader = await openEngine(files.root, { dbPath, ports });
    const store = await IndexStore.open(dbPath, files.root, fixedPorts().ports);
    // A page cache of a few pages, so that queries read the file again rather than answer from the cache.
    reader.store.database.exec('PRAGMA cache_size = 8');
    store.store.database.exec('PRAGMA cache_size = 8');
    const before = allRows(store.store);

    const writer = await openEngine(files.root, { dbPath, ports: fixedPorts().ports });
    files.edit('src/part40.ts', "export const zebraQuartzStage = 'forty';\n");
    await writer.sync();
    assert.equal(writer.store.lastSave?.mode, 'pages', 'the writer saved pages into the same file');

    // A store that reads the file directly fails rather than mixing the two versions, and says why.
    assert.throws(() => allRows(store.store), /I\/O|disk/i);
    assert.match(store.store.staleOnDisk ?? '', /saved by another process/);
    assert.notDeepEqual(before, {});
    store.store.close();

    // The engine opens the file again and answers from the writer's version.
    const found = await reader.search('zebraQuartzStage');
    assert.equal(found.results[0]?.path, 'src/part40.ts', 'the edit made by the other process is found first');
    assert.ok(
      logged.some((line) => /Reading .* again: .*saved by another process/.test(line)),
      logged.join('\n'),
    );
    assert.deepEqual(allRows(reader.store), allRows(writer.store));
    await writer.close();
    await reader.close();
  });

  test('a file another process replaced whole keeps being read as the version this store opened, until its next sync merges', async () => {
    const files = project(60);
    const dbPath = path.join(folder(), 'index.sqlite');
    const first = await openEngine(files.root, { dbPath, ports: fixedPorts().ports });
    await first.sync();
    await first.close();
    const reader = await openEngine(files.root, { dbPath, ports: fixedPorts().ports });
    reader.store.database.exec('PRAGMA cache_size = 8');
    const before = allRows(reader.store);

    // Another writer's index of the edited tree is renamed into place, as a whole save does; the reader's open file is the old one.
    const otherPath = path.join(folder(), 'index.sqlite');
    const writer = await openEngine(files.root, { dbPath: otherPath, ports: fixedPorts().ports });
    for (let index = 0; index < 60; index += 3) files.edit(`src/part${index}.ts`, `export const rewritten${index} = ${index};\n`);
    await writer.sync();
    fs.renameSync(otherPath, dbPath);
    assert.deepEqual(allRows(reader.store), before, 'the reader still reads the version it opened, whole');
    assert.equal(reader.store.staleOnDisk, undefined);

    await reader.sync();
    assert.deepEqual(allRows(reader.store), allRows(writer.store));
    await writer.close();
    await reader.close();
  });
});
