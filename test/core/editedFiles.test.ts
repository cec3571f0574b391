import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { describe, test } from 'node:test';
import { fixtureFactory, openEngine, tempFile } from './fixtures';

const project = fixtureFactory();

const files = {
  'src/ledger.ts': 'export function postLedger(amount: number): number {\n  return amount;\n}\n',
  'src/audit.ts': 'export function auditLedger(): string {\n  return "audit";\n}\n',
  'README.md': '# Ledger\n',
};

/** The fixture indexed into a database file, and that file's bytes as the sync wrote them. */
async function syncedWithDatabase(name: string) {
  const fixture = project(files);
  const dbPath = tempFile(name);
  const engine = await openEngine(fixture.root, { dbPath });
  await engine.sync();
  return { fixture, dbPath, engine, onDisk: fs.readFileSync(dbPath) };
}

describe('edited files re-indexed without discovery', () => {
  test('an edit to an indexed file is searchable at once; the database is written by the next sync', async () => {
    const { fixture, dbPath, engine, onDisk } = await syncedWithDatabase('edited.sqlite');
    fixture.edit('src/ledger.ts', 'export function postLedger(amount: number): number {\n  return reconcileQuokkaBalance(amount);\n}\n');
    assert.deepEqual(await engine.syncKnownFiles(['src/ledger.ts']), { reindexed: 1, removed: 0 });
    const found = await engine.search('reconcileQuokkaBalance');
    assert.equal(found.results[0]?.path, 'src/ledger.ts');
    assert.ok(found.results[0]?.text.includes('reconcileQuokkaBalance'));
    assert.ok(fs.readFileSync(dbPath).equals(onDisk), 'neither the re-index nor the search wrote the database');
    const report = await engine.sync();
    assert.equal(report.reindexed, 0, 'the incremental sync finds the file current');
    assert.ok(!fs.readFileSync(dbPath).equals(onDisk), 'the incremental sync wrote the unsaved change');
    await engine.close();
    const reopened = await openEngine(fixture.root, { dbPath });
    assert.equal((await reopened.search('reconcileQuokkaBalance')).results[0]?.path, 'src/ledger.ts');
    await reopened.close();
  });

  test('a new file or an ignore file needs discovery: nothing is changed', async () => {
    const fixture = project(files);
    const engine = await openEngine(fixture.root);
    await engine.sync();
    fixture.write('src/new.ts', 'export const brandNewWombat = 1;\n');
    fixture.edit('src/ledger.ts', 'export const editedAlongside = 2;\n');
    assert.equal(await engine.syncKnownFiles(['src/ledger.ts', 'src/new.ts']), undefined);
    assert.equal((await engine.search('editedAlongside')).results.length, 0, 'the known file was left for the incremental sync too');
    fixture.write('.pkignore', 'src/audit.ts\n');
    assert.equal(await engine.syncKnownFiles(['.pkignore']), undefined);
    await engine.sync();
    assert.equal((await engine.search('brandNewWombat')).results[0]?.path, 'src/new.ts');
    assert.equal(engine.store.catalog.file('src/audit.ts'), undefined, 'the incremental sync applied the new ignore rule');
    await engine.close();
  });

  test('a sync that does not persist leaves the write to the next sync', async () => {
    const { fixture, dbPath, engine, onDisk } = await syncedWithDatabase('deferred.sqlite');
    fixture.write('src/created.ts', 'export const freshlyCreatedNumbat = 3;\n');
    const report = await engine.sync({ persist: false });
    assert.equal(report.reindexed, 1);
    assert.equal((await engine.search('freshlyCreatedNumbat')).results[0]?.path, 'src/created.ts');
    assert.ok(fs.readFileSync(dbPath).equals(onDisk), 'not written yet');
    assert.equal((await engine.sync()).reindexed, 0);
    assert.ok(!fs.readFileSync(dbPath).equals(onDisk), 'written by the next sync although it changed nothing itself');
    await engine.close();
  });

  test('an indexed file that is deleted, replaced by a link or becomes secret is removed', async () => {
    const fixture = project(files);
    const engine = await openEngine(fixture.root);
    await engine.sync();
    fixture.remove('README.md');
    fs.rmSync(fixture.path('src/audit.ts'));
    fs.symlinkSync(fixture.path('src/ledger.ts'), fixture.path('src/audit.ts'));
    const key = 'sk' + '_live_' + 'Q7w3Zr9Kx2Lm5Np8Tv4Bc6Yd';
    fixture.edit('src/ledger.ts', `export const stripeKey = "${key}";\n`);
    assert.deepEqual(await engine.syncKnownFiles(['README.md', 'src/audit.ts', 'src/ledger.ts']), { reindexed: 0, removed: 3 });
    assert.deepEqual([...engine.store.catalog.files().keys()], []);
    assert.equal((await engine.search('stripeKey')).results.length, 0);
    const report = await engine.sync();
    assert.ok(
      (report.exclusionsByReason['secret-content'] ?? 0) >= 1 && (report.exclusionsByReason.symlink ?? 0) >= 1,
      JSON.stringify(report.exclusionsByReason),
    );
    await engine.close();
  });
});

describe('syncChanges: the engine alone picks the quick path or discovery', () => {
  test('known edited paths are re-indexed alone; persist decides whether the database is written', async () => {
    const { fixture, dbPath, engine, onDisk } = await syncedWithDatabase('changes.sqlite');
    fixture.edit('src/ledger.ts', 'export const quickPathPangolin = 1;\n');
    const quick = await engine.syncChanges({ paths: ['src/ledger.ts'], persist: false });
    assert.deepEqual(quick, { path: 'quick', changed: 1, report: null, unsaved: true });
    assert.ok(fs.readFileSync(dbPath).equals(onDisk), 'persist: false wrote nothing');
    fixture.edit('src/audit.ts', 'export const persistedPangolin = 2;\n');
    const written = await engine.syncChanges({ paths: ['src/audit.ts'], persist: true });
    assert.deepEqual(written, { path: 'quick', changed: 1, report: null, unsaved: false });
    assert.ok(!fs.readFileSync(dbPath).equals(onDisk), 'persist: true wrote both edits');
    const reopened = await openEngine(fixture.root, { dbPath });
    assert.equal((await reopened.sync()).read, 0, 'a reopened index re-reads neither edited file');
    await reopened.close();
    await engine.close();
  });

  test('a new path, no paths or full run discovery', async () => {
    const { fixture, engine } = await syncedWithDatabase('discovery.sqlite');
    fixture.write('src/new.ts', 'export const discoveredNumbat = 1;\n');
    const created = await engine.syncChanges({ paths: ['src/new.ts'], persist: false });
    assert.equal(created.path, 'discovery');
    assert.equal(created.changed, 1);
    assert.equal(created.report?.reindexed, 1);
    assert.equal(created.unsaved, true);
    const none = await engine.syncChanges({ persist: true });
    assert.equal(none.path, 'discovery');
    assert.equal(none.unsaved, false);
    const full = await engine.syncChanges({ paths: ['src/ledger.ts'], full: true, persist: true });
    assert.equal(full.report?.full, true);
    await engine.close();
  });
});
