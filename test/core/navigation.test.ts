import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { UserInputError, type ProjectEngine } from '../../src/core/engine';
import { isTestPath } from '../../src/core/navigation/live';
import { importResolvesTo, supertypesOf } from '../../src/core/navigation/references';
import { createStructuralParsers } from '../../src/core/parsing/structuralParsers';
import { fixtureFactory, openEngine, tempFile } from './fixtures';

const repository = path.resolve(__dirname, '..', '..', '..');
const cli = path.join(repository, 'dist', 'cli.js');
const fixture = fixtureFactory();
const engines: ProjectEngine[] = [];
after(async () => {
  for (const engine of engines) await engine.close();
});

async function indexed(
  files: Record<string, string>,
): Promise<{ engine: ProjectEngine; root: string; edit: (relative: string, text: string) => void }> {
  const project = fixture(files);
  const parsers = createStructuralParsers({
    grammarDirectory: path.join(repository, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'),
    queryDirectory: path.join(repository, 'grammars'),
  });
  const engine = await openEngine(project.root, { parsers });
  engines.push(engine);
  await engine.sync();
  return { engine, root: project.root, edit: (relative, text) => project.edit(relative, text) };
}

describe('import resolution for extracted references', () => {
  const cases: Array<[string, string, string, boolean]> = [
    ['src/app.ts', './session', 'src/session.ts', true],
    ['src/app.ts', './session.js', 'src/session.ts', true],
    ['src/app.ts', './lib', 'src/lib/index.ts', true],
    ['src/deep/app.ts', '../session', 'src/session.ts', true],
    ['src/app.ts', './sessions', 'src/session.ts', false],
    ['src/app.ts', 'vscode', 'src/vscode/extension.ts', false],
    ['src/app.ts', '@/core/engine', 'src/core/engine.ts', true],
    ['pkg/app.py', '.models', 'pkg/models.py', true],
    ['pkg/sub/app.py', '..models', 'pkg/models.py', true],
    ['app.py', 'pkg.models', 'pkg/models.py', true],
    ['app.py', 'pkg', 'pkg/__init__.py', true],
    ['app.py', 'other.models', 'pkg/models.py', false],
    ['cmd/main.go', 'example.com/project/internal/store', 'internal/store/store.go', true],
    ['cmd/main.go', 'example.com/project/internal/cache', 'internal/store/store.go', false],
    ['src/app.ts', './session', 'src/other.ts', false],
    ['src/main/java/a/App.java', 'com.example.model.User', 'src/main/java/com/example/model/User.java', true],
  ];
  for (const [importer, specifier, target, expected] of cases) {
    test(`${importer}: ${specifier} ${expected ? 'resolves to' : 'does not resolve to'} ${target}`, () => {
      assert.equal(importResolvesTo(importer, specifier, target), expected);
    });
  }

  test('test code is recognised by folder or name', () => {
    for (const testPath of [
      'test/core/a.ts',
      'src/__tests__/a.ts',
      'pkg/tests/test_a.py',
      'src/session.test.ts',
      'src/session.spec.ts',
      'store_test.go',
      'TestMain.java',
    ]) {
      assert.equal(isTestPath(testPath), true, testPath);
    }
    for (const sourcePath of ['src/session.ts', 'src/contest/entry.ts', 'lib/specification.ts']) {
      assert.equal(isTestPath(sourcePath), false, sourcePath);
    }
  });
});

describe('navigation queries on the engine', () => {
  test('references in Python resolve through imports; an unrelated same-named method is a name match', async () => {
    const { engine } = await indexed({
      'pkg/__init__.py': '',
      'pkg/models.py': 'class User:\n    def save(self):\n        return True\n',
      'pkg/service.py': 'from .models import User\n\n\ndef register():\n    user = User()\n    user.save()\n    return user\n',
      'other/cache.py': 'class Cache:\n    def save(self):\n        pass\n\n\ndef flush(cache):\n    cache.save()\n',
      'tests/test_models.py': 'from pkg.models import User\n\n\ndef test_save():\n    assert User().save()\n',
    });
    const result = await engine.references({ symbol: 'User.save' });
    assert.deepEqual(
      result.declarations.map((declaration) => `${declaration.path}:${declaration.startLine}`),
      ['pkg/models.py:2'],
    );
    const line = (use: { path: string; line: number; label: string; caller: { qualifiedName: string } | null }) =>
      `${use.path}:${use.line} ${use.label} ${use.caller?.qualifiedName ?? '-'}`;
    assert.deepEqual(result.references.map(line), ['pkg/service.py:6 extracted register', 'other/cache.py:7 name-match flush']);
    assert.deepEqual(result.tests.map(line), ['tests/test_models.py:5 extracted test_save']);
  });

  test('a method is used through a receiver; an implementation in an importing file is listed, a bare local is not', async () => {
    const { engine } = await indexed({
      'src/store.ts': 'export interface Store {\n  save(key: string): void;\n}\n',
      'src/memory.ts':
        "import type { Store } from './store';\n\nexport class MemoryStore implements Store {\n" +
        '  save(key: string): void {\n    const save = key;\n    console.log(save);\n  }\n}\n',
      'src/use.ts': "import { Store } from './store';\n\nexport function persist(store: Store): void {\n  store.save('k');\n}\n",
      'src/unrelated.ts': 'export class Disk {\n  save(): void {}\n}\n\nexport function flush(disk: Disk): void {\n  disk.save();\n}\n',
    });
    const result = await engine.references({ symbol: 'Store.save' });
    const line = (use: { path: string; line: number; label: string; caller: { qualifiedName: string } | null }) =>
      `${use.path}:${use.line} ${use.label} ${use.caller?.qualifiedName ?? '-'}`;
    assert.deepEqual(result.references.map(line), [
      'src/memory.ts:4 extracted MemoryStore',
      'src/use.ts:4 extracted persist',
      'src/unrelated.ts:6 name-match flush',
    ]);
    // From the implementation, the interface's file and files using the interface resolve too.
    const fromClass = await engine.references({ symbol: 'MemoryStore.save' });
    assert.deepEqual(fromClass.references.map(line), [
      'src/store.ts:2 extracted Store',
      'src/use.ts:4 extracted persist',
      'src/unrelated.ts:6 name-match flush',
    ]);
  });

  test('supertypes are read from class signatures in several languages', () => {
    assert.deepEqual(supertypesOf('export class PerformanceClient implements IPerformanceClient'), ['IPerformanceClient']);
    assert.deepEqual(supertypesOf('class Cache<T> extends Base<T> implements Store, Disposable'), ['Base', 'T', 'Store', 'Disposable']);
    assert.deepEqual(supertypesOf('class Importer(BaseImporter, LoggingMixin):'), ['BaseImporter', 'LoggingMixin']);
    assert.deepEqual(supertypesOf('public sealed class Widget : Control, IDisposable'), ['Control', 'IDisposable']);
    assert.deepEqual(supertypesOf('function save(key: string): void'), []);
    assert.deepEqual(supertypesOf(null), []);
  });

  test('find_symbol and outline answer from the live file: an edit is re-indexed before the answer', async () => {
    const { engine, edit } = await indexed({ 'src/a.ts': 'export function first(): number {\n  return 1;\n}\n' });
    const before = await engine.findSymbol({ name: 'first' });
    assert.equal(before.matches[0].startLine, 1);
    const edited = '// moved down\n\nexport function first(): number {\n  return 1;\n}\n\nexport function second(): void {}\n';
    edit('src/a.ts', edited);
    const after = await engine.findSymbol({ name: 'first' });
    assert.equal(after.matches[0].startLine, 3);
    assert.equal(after.matches[0].citation.endsWith(`@${after.matches[0].sha256}`), true);
    assert.notEqual(after.matches[0].sha256, before.matches[0].sha256);
    const outline = await engine.outline({ path: 'src/a.ts' });
    assert.deepEqual(
      outline.files[0].declarations.map((declaration) => declaration.qualifiedName),
      ['first', 'second'],
    );
  });

  test('a deleted file drops out of every answer without a sync', async () => {
    const { engine, root } = await indexed({
      'src/a.ts': 'export function kept(): void {}\n',
      'src/b.ts': 'export function gone(): void {\n  kept();\n}\n',
    });
    const citation = (await engine.findSymbol({ name: 'gone' })).matches[0].citation;
    (await import('node:fs')).rmSync(path.join(root, 'src', 'b.ts'));
    assert.deepEqual((await engine.findSymbol({ name: 'gone' })).matches, []);
    assert.deepEqual((await engine.references({ symbol: 'kept' })).references, []);
    assert.deepEqual(
      (await engine.outline({ path: 'src' })).files.map((file) => file.path),
      ['src/a.ts'],
    );
    await assert.rejects(engine.read(citation), UserInputError);
  });

  test('read refuses a file the index does not hold', async () => {
    const project = fixture({ 'src/a.ts': 'export const a = 1;\n' });
    const engine = await openEngine(project.root);
    engines.push(engine);
    await engine.sync();
    project.write('src/late.ts', 'export const late = 2;\n');
    await assert.rejects(engine.read('src/late.ts#L1-L1'), /not in the index/);
    assert.equal((await engine.read('src/a.ts#L1-L1')).text, 'export const a = 1;');
  });

  test('a directory outline keeps to its token budget and says it was cut', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 40; index++)
      files[`src/module${String(index).padStart(2, '0')}.ts`] =
        `export function handler${index}(input: string): string {\n  return input;\n}\n`;
    const { engine } = await indexed(files);
    const whole = await engine.outline({ path: 'src', budgetTokens: 100000 });
    assert.equal(whole.files.length, 40);
    assert.equal(whole.truncated, false);
    const cut = await engine.outline({ path: '.', budgetTokens: 200 });
    assert.equal(cut.truncated, true);
    assert.ok(cut.usedTokens <= 200 && cut.files.length > 0 && cut.files.length < 40);
  });
});

describe('pk find-symbol, references and outline', () => {
  function pk(args: string[]) {
    const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  test('text and --json answers, exit codes and one-line errors', () => {
    const project = fixture({
      'src/session.ts': 'export class Session {\n  send(): void {}\n}\n',
      'src/app.ts': "import { Session } from './session';\nnew Session().send();\n",
    });
    const db = tempFile('navigation.sqlite');
    assert.equal(pk(['index', project.root, '--db', db]).code, 0);
    const common = ['--root', project.root, '--db', db];
    const found = pk(['find-symbol', 'Session.send', ...common, '--json']);
    assert.equal(found.code, 0, found.stderr);
    assert.equal((JSON.parse(found.stdout) as { matches: Array<{ kind: string }> }).matches[0].kind, 'method');
    assert.match(pk(['find-symbol', 'Session', ...common]).stdout, /^class Session\n {4}src\/session\.ts#L1-L3@[0-9a-f]{64}/);
    assert.equal(pk(['find-symbol', 'Missing', ...common]).code, 1);
    const references = JSON.parse(pk(['references', 'Session.send', ...common, '--json']).stdout) as {
      references: Array<{ path: string; line: number; label: string }>;
    };
    assert.deepEqual(
      references.references.map((use: { path: string; line: number; label: string }) => `${use.path}:${use.line} ${use.label}`),
      ['src/app.ts:2 extracted'],
    );
    const outline = pk(['outline', 'src', ...common]);
    assert.match(outline.stdout, /src\/session\.ts .*\n {2}class Session {2}class Session {2}L1-3\n/);
    const bad = pk(['outline', 'nowhere', ...common]);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
    assert.equal(pk(['references', ...common]).code, 2);
    assert.equal(pk(['outline', 'src', '--kind', 'class', ...common]).code, 2);
  });
});
