import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  auxiliaryOutsideSubject,
  fileNamedStopwords,
  pathInScope,
  sentenceInitialWords,
  subjectFileNames,
  subjectNamesFile,
  subjectScope,
} from '../../src/core/retrieval/subjectScope';

describe('the component a subject line names (subjectScope)', () => {
  test('conventional-commit scopes, bare component prefixes and bracketed tags', () => {
    assert.deepEqual(subjectScope('fix(etag): copy pending stream bytes (#5239)'), ['etag']);
    assert.deepEqual(subjectScope('feat(jsx/dom)!: execute previous ref cleanup'), ['jsx', 'dom']);
    assert.deepEqual(subjectScope('fix(secure-headers): keep CSP callbacks scoped'), ['secure', 'headers']);
    assert.deepEqual(subjectScope('fish: Make CTRL-R work on empty colors\n\nbody: not the subject'), ['fish']);
    assert.deepEqual(subjectScope('[vim] Move and resize popup window'), ['vim']);
  });

  test('change types, log prefixes and plain sentences name no component', () => {
    assert.equal(subjectScope('fix: fix get braces for `deque`'), undefined);
    assert.equal(subjectScope('Fix: Use system default ProxySelector'), undefined);
    assert.equal(subjectScope('error: unknown option --frobnicate'), undefined);
    assert.equal(subjectScope('[Bug] the table renders twice'), undefined);
    assert.equal(subjectScope('Fix double-width characters disappearing when wrapping'), undefined);
    assert.equal(subjectScope('see https://example.test/a: it fails'), undefined);
    assert.equal(subjectScope(''), undefined);
  });

  test('a path is in scope when every scope word is one of its segments', () => {
    assert.ok(pathInScope('src/middleware/etag/digest.ts', ['etag']));
    assert.ok(pathInScope('src/middleware/secure-headers/secure-headers.ts', ['secure', 'headers']));
    assert.ok(pathInScope('shell/key-bindings.fish', ['fish']));
    assert.ok(!pathInScope('src/etagged.ts', ['etag']));
    assert.ok(!pathInScope('src/jsx/render.ts', ['jsx', 'dom']));
  });

  test('plain words that only open a line or a sentence are its verbs, not names it asks for', () => {
    assert.deepEqual([...sentenceInitialWords('Fix horizontal mouse wheel\n\nClose #4848')].sort(), ['Close', 'Fix']);
    assert.deepEqual([...sentenceInitialWords('* Remove debugging. Update the cache: Reset it')].sort(), ['Remove', 'Reset', 'Update']);
    // Named again inside a sentence, a word is a name; identifier-shaped words never count.
    assert.deepEqual([...sentenceInitialWords('Parser drops tags, and the cloned Parser loses its TagSet')], []);
    assert.deepEqual([...sentenceInitialWords('TagSet is shared. HTML5 scope; parseHeader fails')], []);
    assert.deepEqual([...sentenceInitialWords('')], []);
  });

  test('a subject spells out a file name as whole tokens, in any of the identifier spellings', () => {
    const named = (subject: string, path: string) => subjectNamesFile(subjectFileNames(subject), path);
    assert.ok(named('fix foo_bar handling', 'src/foo_bar.py'));
    assert.ok(named('fix foo_bar handling', 'src/fooBar.ts'));
    assert.ok(named('Fix FooBar handling (#12)', 'lib/foo-bar.js'));
    assert.ok(named('Fix line numbers width in side-by-side mode', 'src/features/line_numbers.rs'));
    assert.ok(named('Fix side-by-side wrapping', 'src/features/side_by_side.rs'));
    assert.ok(named('fix(install): keep the venv', 'src/pipx/commands/install.py'));
    // Half of a token, a longer name, or another file's name is not the file's name.
    assert.ok(!named('fix foo_bar handling', 'src/foo.py'));
    assert.ok(!named('fix foo_bar handling', 'src/bar_handling.py'));
    assert.ok(!named('fix foo handling', 'src/foo_bar.py'));
    assert.ok(!named('fix foo_bar handling', 'tests/test_foo_bar.py'));
    // Entry files and names under three letters name no component.
    assert.ok(!named('Fix main loop on init', 'src/main.rs'));
    assert.ok(!named('Fix main loop on init', 'src/pipx/__init__.py'));
    assert.ok(!named('fix io error', 'src/io.rs'));
    assert.ok(!named('', 'src/foo_bar.py'));
  });

  test("a subject's stopwords count as words only where they name a file", () => {
    const stems = new Set(['live', 'console', 'show_themes']);
    const namesFile = (word: string) => stems.has(word);
    assert.deepEqual(fileNamedStopwords('fix markup in console live', ['fix', 'markup', 'console'], namesFile), ['live']);
    // A stopword without a file of its stem, one already a keyword, or one under three letters stays out.
    assert.deepEqual(fileNamedStopwords('Fix show themes output', ['fix', 'themes', 'output'], namesFile), []);
    assert.deepEqual(fileNamedStopwords('live: fix resize', ['live', 'fix', 'resize'], namesFile), []);
    assert.deepEqual(
      fileNamedStopwords('fix it', ['fix'], () => true),
      [],
    );
  });

  test('files in docs, examples and fixture folders are auxiliary unless the subject names the folder', () => {
    const auxiliary = (subject: string, path: string) => auxiliaryOutsideSubject(subjectFileNames(subject), path);
    assert.ok(auxiliary('Fix redaction of report output', 'testdata/expected/report/sarif_simple.sarif'));
    assert.ok(auxiliary('Fix hunk header in merge conflicts', 'etc/examples/822-hunk-header.diff'));
    assert.ok(auxiliary('fix markup in console live', 'docs/source/markup.rst'));
    // The subject names the folder (singular or plural): its files are what it is about.
    assert.ok(!auxiliary('Fix the example of a progress bar', 'examples/downloader.py'));
    assert.ok(!auxiliary('docs: fix the install page', 'docs/install.md'));
    // Source folders, and folder names only as a part of a segment, are not auxiliary.
    assert.ok(!auxiliary('Fix redaction of report output', 'report/sarif.go'));
    assert.ok(!auxiliary('Fix tool lookup', 'src/toolsets/lookup.ts'));
    // Scripts and tools are code some projects fix (pipx's `scripts/release.py`).
    assert.ok(!auxiliary('Fix release push auth', 'scripts/release.py'));
    assert.ok(!auxiliary('Fix docstring parsing', 'rich/docstring.py'));
  });
});
