import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { conceptList, describingText, fullTextTerms, nameCoverage } from '../../src/core/retrieval/candidates';
import { acronymsOf, codeTermsFor } from '../../src/core/retrieval/codeTerms';
import { fixtureFactory, openEngine, structuralParsers } from './fixtures';

const fixture = fixtureFactory();

describe('a declaration described in prose', () => {
  test('the describing text is the doc comment above, or the docstring after the signature, with the signature', () => {
    const typescript = [
      '/**',
      ' * Rotates the log once it grows past the limit.',
      ' */',
      'export function roll(path: string) {',
      '  return path',
      '}',
    ];
    const jsdoc = describingText({ startLine: 1, endLine: 6, symbolStart: 4, signature: 'export function roll(path: string)' }, typescript);
    assert.ok(jsdoc.includes('Rotates the log') && jsdoc.includes('roll(path: string)'), jsdoc);

    const python = [
      'def save(self,',
      '         filename=None):',
      '',
      '    """Save cookies to a file',
      '    in the Netscape format."""',
      '    pass',
    ];
    const docstring = describingText({ startLine: 1, endLine: 6, symbolStart: 1, signature: 'def save(self, filename=None)' }, python);
    assert.ok(docstring.includes('Netscape format'), docstring);

    // A body whose first statement is code has no docstring, even when a string follows later.
    const code = ['def load(self):', '    value = 1', '    """not a docstring"""'];
    assert.equal(describingText({ startLine: 1, endLine: 3, symbolStart: 1, signature: 'def load(self)' }, code), 'def load(self)');
    // A later part of a long declaration holds neither.
    const part = describingText({ startLine: 4, endLine: 6, symbolStart: 1, signature: 'def save(self, filename=None)' }, python);
    assert.equal(part, 'def save(self, filename=None)');
  });

  test('a question ranks the function its doc comment describes above one that only shares body words', async () => {
    // Both hold the question's words; the one that states it in its doc comment is what the question asks for.
    const project = fixture({
      'src/archive.ts': [
        '/**',
        ' * Rotates the log file once it grows past the size limit.',
        ' */',
        'export function roll(target: string, bytes: number, keep: number) {',
        '  const next = `${target}.1`',
        '  const older = Array.from({ length: keep }, (_, index) => `${target}.${index + 2}`)',
        '  const moved = older.reverse().map((name, index) => [name, older[index + 1] ?? next])',
        '  return bytes > 0 ? { next, moved } : { next: target, moved: [] }',
        '}',
        '',
      ].join('\n'),
      'src/report.ts': [
        'export function summary(entries: string[]) {',
        "  const text = entries.join(' ')",
        '  return `log file: size ${text.length}, limit ${text.length * 2}, rotated, grows; log file size limit, log file`',
        '}',
        '',
      ].join('\n'),
    });
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('how does the log file get rotated once it grows past the size limit?');
    assert.equal(result.results[0]?.symbol, 'roll', JSON.stringify(result.results.map((item) => item.symbol ?? item.path)));
    await engine.close();
  });
});

describe('name coverage', () => {
  test("a declared name's share of the request's concepts, its parent's apart, aliases counting as their concept", () => {
    const weights = new Map([
      ['pars', 2],
      ['cooki', 1],
      ['jar', 1],
      ['rotat', 4],
    ]);
    const aliases = new Map([['rotat', ['roll']]]);
    const row = { name: 'parseCookieHeader', qualifiedName: 'CookieJar.parseCookieHeader' };
    // pars and cooki are the name's own (3 of 8), jar only its parent's (1 of 8), rotat neither.
    assert.deepEqual(nameCoverage(row, weights, aliases), { own: 3 / 8, parent: 1 / 8 });
    // `roll` stands for `rotat`: the name holds 4 of 8 through the alias.
    assert.deepEqual(nameCoverage({ name: 'rollLog', qualifiedName: 'rollLog' }, weights, aliases), { own: 4 / 8, parent: 0 });
    // The list made once per request gives what the map gives, row by row.
    const list = conceptList(weights, aliases);
    for (const other of [row, { name: 'rollLog', qualifiedName: 'Logs.rollLog' }, { name: null, qualifiedName: null }])
      assert.deepEqual(nameCoverage(other, list), nameCoverage(other, weights, aliases));
    assert.deepEqual(nameCoverage(row, new Map()), { own: 0, parent: 0 });
  });
});

describe('code terms for question words', () => {
  test('a question word stands for the code terms of its act or its abbreviation; other words for none', () => {
    assert.ok(codeTermsFor('checked').includes('verify'));
    assert.ok(codeTermsFor('throws').includes('error'));
    assert.ok(codeTermsFor('configuration').includes('config'));
    assert.deepEqual(codeTermsFor('quokka'), []);
    // Only a question's prose words get them, as related terms.
    const [checked] = fullTextTerms(['checked'], new Set(['checked']), true);
    assert.ok(checked.related?.includes('"verify"') && checked.terms.includes('"verify"'), JSON.stringify(checked));
    assert.equal(fullTextTerms(['checked'], new Set(['checked']))[0].related, undefined);
    assert.equal(fullTextTerms(['checked'], new Set(), true)[0].related, undefined);
  });

  test("a question's words find the declaration named in code terms", async () => {
    // Both take a token and a key; only the words `checked` stands for (`verify`) tell them apart.
    const project = fixture({
      'src/one.ts': ['export function verifyToken(token: string, key: string) {', '  return token.endsWith(key)', '}', ''].join('\n'),
      'src/two.ts': ['export function tokenOwner(token: string, key: string) {', '  return `${key}:${token}`', '}', ''].join('\n'),
    });
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('how is a token checked against the key?');
    assert.equal(result.results[0]?.symbol, 'verifyToken', JSON.stringify(result.results.map((item) => item.symbol ?? item.path)));
    await engine.close();
  });
});

describe("a question's nudge toward the files its words spread over", () => {
  test('a test file that holds every word of the behaviour does not lift its own tests above the code', async () => {
    // Like jsoup's `HttpConnectionTest.redirectMethodsFollowHttpSemantics` above `redirectMethod`:
    // the tests' names and comments repeat the question's words, the code states them once.
    const names = [
      'redirectAfterPostUsesGet',
      'redirectAfterPutKeepsMethod',
      'redirectAfterHeadKeepsHead',
      'redirectFollowUpRequestMethod',
    ];
    const cases = names.map((name, index) =>
      [
        `export function ${name}() {`,
        `  const status = ${301 + index}`,
        '  // the follow-up request after a redirect of a POST uses this method',
        "  return check(nextVerb(status, 'POST'), status)",
        '}',
      ].join('\n'),
    );
    const project = fixture({
      'src/http.ts': [
        '/** The method of the follow-up request after an automatic redirect. */',
        'export function nextVerb(status: number, verb: string) {',
        "  if (status === 303) return verb === 'HEAD' ? 'HEAD' : 'GET'",
        "  if (status === 301 || status === 302) return verb === 'POST' ? 'GET' : verb",
        '  return verb',
        '}',
        '',
        'export function send(url: string) {',
        '  return fetch(url)',
        '}',
        '',
      ].join('\n'),
      'test/http.test.ts': [
        "import { nextVerb } from '../src/http'",
        'function check(a: string, b: number) {',
        '  return a + b',
        '}',
        ...cases,
        '',
      ].join('\n'),
    });
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('after a POST gets a 303 status, which method does the follow-up request of the redirect use?');
    const order = result.results.map((item) => `${item.path}:${item.startLine} ${item.score}`);
    assert.equal(result.results[0]?.symbol, 'nextVerb', JSON.stringify(order));
    // A question about the tests still gets them first.
    const tests = await engine.search('which tests check the method after a redirect of a POST?');
    assert.equal(tests.results[0]?.path, 'test/http.test.ts', JSON.stringify(tests.results.map((item) => item.symbol ?? item.path)));
    await engine.close();
  });
});

describe("a question's acronyms", () => {
  test('three or four adjacent words give their initials, for every word of the run', () => {
    const words = ['shells', 'need', 'byte', 'order', 'mark', 'written', 'start', 'script'];
    const acronyms = acronymsOf('which shells need a byte order mark written at the start of the script?', words);
    assert.deepEqual(acronyms.get('byte'), ['bom', 'bomw']);
    assert.deepEqual(acronyms.get('order'), ['bom', 'omw', 'bomw']);
    // A stopword ("a", "at", "the") ends a run, so no acronym spans it.
    assert.equal(acronyms.get('shells'), undefined);
    assert.equal(acronyms.get('start'), undefined);
    // A hyphen joins words as a space does; other punctuation ends the run.
    assert.deepEqual(acronymsOf('a server-sent event', ['server', 'sent', 'event']).get('sent'), ['sse']);
    assert.equal(acronymsOf('server, sent event', ['server', 'sent', 'event']).size, 0);
  });

  test('an acronym is a code term of each word of its run', () => {
    const acronyms = new Map([
      ['byte', ['bom']],
      ['order', ['bom']],
    ]);
    const [byte] = fullTextTerms(['byte', 'order'], new Set(['byte', 'order']), true, acronyms);
    assert.ok(byte.terms.includes('"bom"') && byte.related?.includes('"bom"'), JSON.stringify(byte));
    assert.deepEqual(byte.acronyms, ['"bom"']);
    // Only a question's words get code terms.
    assert.ok(!fullTextTerms(['byte'], new Set(['byte']), false, acronyms)[0].terms.includes('"bom"'));
  });

  test('a question finds the declaration named by the initials of its words', async () => {
    // `orderMarks` holds two of the question's words in its name; `needsBom` holds three as their initials.
    const project = fixture({
      'src/executor.ts': [
        'export function needsBom(shell: string) {',
        "  return shell === 'powershell'",
        '}',
        '',
        'export function scriptStart(shell: string) {',
        '  return `${shell} script`',
        '}',
        '',
      ].join('\n'),
      'src/marks.ts': ['export function orderMarks(marks: string[]) {', '  return marks.sort()', '}', ''].join('\n'),
      'src/other.ts': 'export function page(size: number) {\n  return size\n}\n',
      'src/more.ts': 'export function unrelated(a: number) {\n  return a + 1\n}\n',
    });
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('which shells need a byte order mark at the start of the script?');
    assert.equal(result.results[0]?.symbol, 'needsBom', JSON.stringify(result.results.map((item) => item.symbol ?? item.path)));
    await engine.close();
  });
});
