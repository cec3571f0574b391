import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { canonicalRoot, discover, RootRefusedError } from '../../src/core/discovery';
import { IgnoreRules } from '../../src/core/ignoreRules';
import { defaultBounds } from '../../src/core/options';
import { nodePorts } from '../../src/core/ports';
import { fixtureFactory, numberedLines } from './fixtures';

const ports = nodePorts();
const fixture = fixtureFactory();

describe('root refusal', () => {
  test('refuses the filesystem root with one line', async () => {
    await assert.rejects(
      canonicalRoot('/', ports),
      (error: unknown) => error instanceof RootRefusedError && error.reason === 'filesystem-root' && !error.message.includes('\n'),
    );
  });

  test('refuses the home directory', async () => {
    const home = fixture();
    const homePorts = { ...ports, fs: { ...ports.fs, homeDirectory: () => home.root } };
    await assert.rejects(
      canonicalRoot(home.root, homePorts),
      (error: unknown) => error instanceof RootRefusedError && error.reason === 'home-directory',
    );
    await assert.rejects(canonicalRoot(os.homedir(), ports), RootRefusedError);
  });

  test('refuses a missing folder', async () => {
    await assert.rejects(
      canonicalRoot('/definitely/not/here', ports),
      (error: unknown) => error instanceof RootRefusedError && error.reason === 'missing',
    );
  });
});

describe('walk without git', () => {
  test('is sorted, skips dependency folders and records reasons', async () => {
    const project = fixture({
      'b.ts': 'export const b = 1;\n',
      'a/z.ts': 'export const z = 1;\n',
      'a/y.py': 'y = 1\n',
      'node_modules/left-pad/index.js': 'module.exports = 1;\n',
      'package-lock.json': '{}\n',
    });
    const found = await discover(project.root, defaultBounds, [], false, ports);
    assert.equal(found.usedGit, false);
    assert.deepEqual(
      found.candidates.map((candidate) => candidate.path),
      ['a/y.py', 'a/z.ts', 'b.ts'],
    );
    const reasons = Object.fromEntries(found.exclusions.map((exclusion) => [exclusion.path, exclusion.reason]));
    assert.equal(reasons['node_modules/'], 'dependency');
    assert.equal(reasons['package-lock.json'], 'lockfile');
  });

  test('does not follow symbolic links, including a loop', async () => {
    const project = fixture({ 'src/real.ts': 'export const real = 1;\n' });
    const outside = fixture({ 'secret.ts': 'export const outside = 1;\n' });
    fs.symlinkSync(outside.root, project.path('src/linked-dir'));
    fs.symlinkSync(project.path('src/real.ts'), project.path('src/link.ts'));
    fs.symlinkSync(project.path('src'), project.path('src/loop'));
    const found = await discover(project.root, defaultBounds, [], false, ports);
    assert.deepEqual(
      found.candidates.map((candidate) => candidate.path),
      ['src/real.ts'],
    );
    const symlinks = found.exclusions
      .filter((exclusion) => exclusion.reason === 'symlink')
      .map((exclusion) => exclusion.path)
      .sort();
    assert.deepEqual(symlinks, ['src/link.ts', 'src/linked-dir', 'src/loop']);
  });

  test('stops at the directory bound and says so', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 30; index++) files[`d${String(index).padStart(2, '0')}/f.ts`] = 'x\n';
    const project = fixture(files);
    const found = await discover(project.root, { ...defaultBounds, maxDirectories: 10 }, [], false, ports);
    assert.ok(found.candidates.length < 30);
    assert.ok(found.boundNotes.some((note) => note.includes('maxDirectories')));
    assert.ok(found.exclusions.some((exclusion) => exclusion.reason === 'bound-directories'));
  });

  test('leaves out files over the size bound with a reason', async () => {
    const project = fixture({ 'big.ts': 'x'.repeat(600_000), 'small.ts': 'export {};\n' });
    const found = await discover(project.root, defaultBounds, [], false, ports);
    assert.deepEqual(
      found.candidates.map((candidate) => candidate.path),
      ['small.ts'],
    );
    assert.deepEqual(found.exclusions.find((exclusion) => exclusion.path === 'big.ts')?.reason, 'too-large');
  });
});

describe('git discovery', () => {
  test('lists tracked and untracked-not-ignored files and marks tracking', async () => {
    const project = fixture({ '.gitignore': 'ignored.ts\n', 'tracked.ts': numberedLines(3), 'ignored.ts': 'x\n' });
    project.initGit();
    project.write('untracked.ts', 'export const u = 1;\n');
    const found = await discover(project.root, defaultBounds, [], true, ports);
    assert.equal(found.usedGit, true);
    assert.deepEqual(
      found.candidates.map((candidate) => [candidate.path, candidate.tracked]),
      [
        ['.gitignore', true],
        ['tracked.ts', true],
        ['untracked.ts', false],
      ],
    );
  });

  test('a subfolder of a repository is its own project', async () => {
    const project = fixture({ 'pkg/a.ts': 'a\n', 'other/b.ts': 'b\n' });
    project.initGit();
    const found = await discover(project.path('pkg'), defaultBounds, [], true, ports);
    assert.deepEqual(
      found.candidates.map((candidate) => candidate.path),
      ['a.ts'],
    );
  });
});

describe('.pkignore and user globs', () => {
  test('gitignore syntax: anchors, directories, negation, double star', () => {
    const rules = IgnoreRules.fromText(
      ['# comment', 'generated/', '/root-only.ts', '*.snap', '!keep.snap', 'docs/**/draft-*.md'].join('\n'),
    );
    assert.equal(rules.ignores('generated/x.ts'), true);
    assert.equal(rules.ignores('src/generated/x.ts'), true);
    assert.equal(rules.ignores('root-only.ts'), true);
    assert.equal(rules.ignores('src/root-only.ts'), false);
    assert.equal(rules.ignores('a/b.snap'), true);
    assert.equal(rules.ignores('a/keep.snap'), false);
    assert.equal(rules.ignores('docs/a/b/draft-1.md'), true);
    assert.equal(rules.ignores('docs/final.md'), false);
  });

  test('discovery applies .pkignore and extra globs with their own reasons', async () => {
    const project = fixture({ '.pkignore': 'generated/\n', 'generated/g.ts': 'g\n', 'src/a.ts': 'a\n', 'src/a.test.ts': 't\n' });
    const found = await discover(project.root, defaultBounds, ['**/*.test.ts'], false, ports);
    assert.deepEqual(
      found.candidates.map((candidate) => candidate.path),
      ['.pkignore', 'src/a.ts'],
    );
    const reasons = Object.fromEntries(found.exclusions.map((exclusion) => [exclusion.path, exclusion.reason]));
    assert.equal(reasons['generated/'], 'pkignore');
    assert.equal(reasons['src/a.test.ts'], 'user-exclude');
  });
});

test('paths are project-relative POSIX paths', async () => {
  const project = fixture({ 'deep/er/file.ts': 'x\n' });
  const found = await discover(project.root, defaultBounds, [], false, ports);
  assert.equal(found.candidates[0].path, ['deep', 'er', 'file.ts'].join('/'));
  assert.ok(!path.isAbsolute(found.candidates[0].path));
});
