import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { requestWordTerms } from '../../src/core/retrieval/candidates';
import { describeTask } from '../../src/core/retrieval/descriptor';
import { fileScoreParameters, scoreFiles } from '../../src/core/retrieval/fileScore';
import { Fixture, fixtureFactory, openEngine, structuralParsers } from './fixtures';

const fixture = fixtureFactory();
const created: Fixture[] = [];
after(() => created.forEach((item) => item.cleanup()));

/** Functions that each mention a word once, so no single chunk stands out. */
function functions(prefix: string, words: string[]): string {
  return words.map((word, index) => `def ${prefix}_${index}(value):\n    # handles the ${word}\n    return value\n`).join('\n');
}

/** A file of filler functions with unrelated words. */
function filler(prefix: string, count: number): string {
  return Array.from({ length: count }, (_, index) => `def ${prefix}_${index}(value):\n    return value + ${index}\n`).join('\n');
}

describe('whole-file BM25F and file-level ranking (issue 14)', () => {
  test('a file the request words spread over outranks one with a single stray match', async () => {
    const project = fixture({
      'app/spread.py': functions('step', ['rotation', 'archive', 'threshold', 'rollover']),
      'app/stray.py': `${filler('noise', 6)}\ndef other(value):\n    # rotation\n    return value\n`,
      'app/unrelated.py': filler('quiet', 4),
    });
    created.push(project);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const terms = requestWordTerms(engine.store, describeTask('rotation archive threshold rollover of the log'));
    const scores = scoreFiles(engine.store, terms, 10);
    assert.equal(scores[0]?.path, 'app/spread.py', JSON.stringify(scores));
    assert.ok(scores.some((entry) => entry.path === 'app/stray.py'));
    assert.ok(!scores.some((entry) => entry.path === 'app/unrelated.py'), 'a file without any request word scores nothing');
    assert.ok(scores[0].score > scores[1].score);
    await engine.close();
  });

  test('file sizes come from the catalog in memory and follow edits and removals', async () => {
    const project = fixture({ 'app/one.py': filler('one', 2), 'app/two.py': filler('two', 3) });
    created.push(project);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const catalog = engine.store.catalog;
    for (const file of ['app/one.py', 'app/two.py']) assert.equal(catalog.bytesOf(file), catalog.file(file)?.bytes);
    project.write('app/one.py', filler('one', 9));
    project.remove('app/two.py');
    await engine.sync();
    assert.equal(catalog.bytesOf('app/one.py'), Buffer.byteLength(filler('one', 9)));
    assert.equal(catalog.bytesOf('app/two.py'), undefined, 'a removed file has no size');
    assert.equal(catalog.bytesOf('app/missing.py'), undefined);
    await engine.close();
  });

  test('a declaration named by the request words is evidence a body mention is not', async () => {
    const project = fixture({
      'app/declared.py': `def rotate_archive(value):\n    return value\n\n${filler('pad', 3)}`,
      'app/mentioned.py': `def helper(value):\n    # rotate archive\n    return value\n\n${filler('pad', 3)}`,
    });
    created.push(project);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const terms = requestWordTerms(engine.store, describeTask('how is the archive rotated'));
    const withNames = scoreFiles(engine.store, terms, 10);
    assert.equal(withNames[0]?.path, 'app/declared.py', JSON.stringify(withNames));
    const withoutNames = new Map(
      scoreFiles(engine.store, terms, 10, { ...fileScoreParameters, names: { weight: 0 } }).map((entry) => [entry.path, entry.score]),
    );
    const declared = withNames.find((entry) => entry.path === 'app/declared.py')?.score ?? 0;
    assert.ok(declared > (withoutNames.get('app/declared.py') ?? 0), 'the names field adds to the declaring file');
    await engine.close();
  });

  test('files mode ranks code above prose and tests, unless the request is about them', async () => {
    const project = fixture({
      'src/rotation.py': functions('rotate', ['rotation', 'archive', 'threshold']),
      'README.md': '# Rotation\n\nThe rotation archive threshold: rotation, archive and threshold explained.\n',
      'tests/test_rotation.py': functions('check', ['rotation', 'archive', 'threshold', 'rotation']),
    });
    created.push(project);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const code = await engine.search('fix the rotation archive threshold when it overflows', { granularity: 'files' });
    assert.equal(code.files?.[0]?.path, 'src/rotation.py', JSON.stringify(code.files?.map((file) => [file.path, file.score])));
    const docs = await engine.search('fix the rotation archive threshold in the readme docs', { granularity: 'files' });
    const readme = docs.files?.find((file) => file.path === 'README.md');
    const readmeBefore = code.files?.find((file) => file.path === 'README.md');
    assert.ok(readme && readmeBefore && readme.score > readmeBefore.score, 'a request about docs does not demote them');
    for (const file of code.files ?? []) assert.ok(file.evidence.length >= 1, `${file.path} has evidence`);
    await engine.close();
  });

  test('a symbol lookup in files mode keeps the declaring file first', async () => {
    const users = Array.from({ length: 6 }, (_, index) => `    total += rotateArchive(${index})`).join('\n');
    const project = fixture({
      'src/archive.ts': 'export function rotateArchive(size: number): number {\n  return size;\n}\n',
      'src/users.ts': `export function useIt(): number {\n  let total = 0;\n${users}\n  return total;\n}\n`,
    });
    created.push(project);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('rotateArchive', { granularity: 'files' });
    assert.equal(result.files?.[0]?.path, 'src/archive.ts', JSON.stringify(result.files?.map((file) => [file.path, file.score])));
    await engine.close();
  });
});
