import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { collectCandidates, exactTierFloor, tierScores } from '../../src/core/retrieval/candidates';
import { describeTask } from '../../src/core/retrieval/descriptor';
import { fixtureFactory, numberedLines, openEngine, structuralParsers } from './fixtures';

const fixture = fixtureFactory();

const python = {
  'pkg/cookies.py': [
    'class CookieError(Exception):',
    '    pass',
    '',
    '',
    'class Morsel(dict):',
    '    def set(self, key, val, coded_val):',
    '        if not key.isidentifier():',
    "            raise CookieError('Illegal key %r' % (key,))",
    '        self.key = key',
    '',
    '',
    'class BaseCookie(dict):',
    '    def load(self, rawdata):',
    '        """Load cookies from a string (presumably HTTP_COOKIE)."""',
    '        return self.__parse_string(rawdata)',
    '',
    '    def __parse_string(self, text):',
    '        parsed_items = []',
    '        for part in text.split(";"):',
    '            parsed_items.append(part)',
    '        return parsed_items',
    '',
  ].join('\n'),
  'pkg/jar.py': [
    'def load(path):',
    '    """Load a cookie jar file."""',
    '    return open(path).read()',
    '',
    '',
    'def Loader():',
    '    return None',
    '',
  ].join('\n'),
  'pkg/notes.txt': 'The load method of BaseCookie accepts a raw cookie string.\nCookies are parsed lazily.\n',
};

describe('tiers and candidates', () => {
  test('each kind of request reaches its tier with its reason', async () => {
    const engine = await openEngine(fixture(python).root, { parsers: structuralParsers() });
    await engine.sync();
    const top = async (query: string) => (await engine.search(query)).results[0];
    assert.equal((await top('BaseCookie.load')).reason, 'exact-qualified-symbol');
    assert.equal((await top('pkg/jar.py')).reason, 'exact-path');
    assert.equal((await top('CookieError')).reason, 'exact-symbol');
    assert.equal((await top('jar.py')).reason, 'exact-basename');
    assert.equal((await top('loader')).reason, 'declared-fallback');
    assert.equal((await top('"accepts a raw cookie string"')).reason, 'exact-phrase');
    const cookies = await engine.search('where are cookies parsed lazily?');
    assert.ok(cookies.results.some((result) => result.reason === 'full-text' || result.reason === 'symbol-text'));
    for (const [reason, score] of Object.entries(tierScores)) assert.ok(score >= 20, reason);
    await engine.close();
  });

  test('a qualified name picks its declaration over same-named ones; a bare name returns them all', async () => {
    const engine = await openEngine(fixture(python).root, { parsers: structuralParsers() });
    await engine.sync();
    const qualified = await engine.search('BaseCookie.load');
    assert.equal(qualified.results[0].symbol, 'BaseCookie.load');
    assert.ok(qualified.results[0].score > qualified.results[1].score);
    const bare = await engine.search('load');
    const declared = bare.results
      .filter((result) => result.reason === 'exact-symbol')
      .map((result) => result.symbol)
      .sort();
    assert.deepEqual(declared, ['BaseCookie.load', 'load']);
    const outer = await engine.search('pkg.cookies.BaseCookie.load');
    assert.equal(outer.results[0].symbol, 'BaseCookie.load', 'an unknown outer qualifier is dropped');
    await engine.close();
  });

  test('an error message ranks the line that raises it above the exception class', async () => {
    const engine = await openEngine(fixture(python).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search("http.cookies.CookieError: Illegal key 'a b'");
    assert.equal(result.results[0].symbol, 'Morsel.set');
    assert.equal(result.results[0].reason, 'exact-phrase');
    assert.ok(result.results.some((item) => item.symbol === 'CookieError'));
    await engine.close();
  });

  test('an error whose wording repeats for another value ranks the line with its quoted value', async () => {
    const source = [
      'export const jwt = (options: { secret?: string; alg?: string }) => {',
      '  if (!options.secret) {',
      '    throw new Error(\'JWT auth middleware requires options for "secret"\')',
      '  }',
      ...Array.from({ length: 50 }, (_, line) => `  const step${line} = options.secret?.length ?? ${line}`),
      '  if (!options.alg) {',
      '    throw new Error(\'JWT auth middleware requires options for "alg"\')',
      '  }',
      '  return options',
      '}',
      '',
    ].join('\n');
    const engine = await openEngine(fixture({ 'src/jwt.ts': source }).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('Error: JWT auth middleware requires options for "alg"');
    const first = result.results[0];
    assert.equal(first.reason, 'exact-phrase');
    assert.ok(first.text.includes('"alg"'), first.text);
    await engine.close();
  });

  test('a question ranks the function that behaves above its test and its benchmark, unless it asks about tests', async () => {
    const files = {
      'src/middleware/request-id.ts': [
        'export type RequestIdOptions = { headerName?: string; generator?: () => string }',
        '',
        'export const requestId = (options: RequestIdOptions = {}) => {',
        '  return async (c: { set(key: string, value: string): void }, next: () => Promise<void>) => {',
        '    const id = options.generator ? options.generator() : crypto.randomUUID()',
        "    c.set('requestId', id)",
        '    await next()',
        '  }',
        '}',
        '',
      ].join('\n'),
      'src/middleware/request-id.test.ts': [
        "test('every request gets its own unique id', async () => {",
        '  const first = await requestId()(context, next)',
        '  expect(first).not.toBe(second)',
        '})',
        '',
      ].join('\n'),
      'benchmarks/request-id.ts': [
        'export function main() {',
        '  for (const request of requests) requestId()(request, next)',
        '}',
        '',
      ].join('\n'),
    };
    const engine = await openEngine(fixture(files).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('how does every incoming request get its own unique id?');
    assert.equal(result.results[0]?.symbol, 'requestId', JSON.stringify(result.results.map((item) => item.symbol ?? item.path)));
    // Unless the question is about tests: then the test answers it.
    const aboutTests = await engine.search('which test checks that every request gets its own unique id?');
    assert.equal(aboutTests.results[0]?.path, 'src/middleware/request-id.test.ts');
    await engine.close();
  });

  test('a path with a line, and a stack trace, pick the chunk holding the line; the innermost frame first', async () => {
    const engine = await openEngine(fixture(python).root, { parsers: structuralParsers() });
    await engine.sync();
    const byLine = await engine.search('pkg/cookies.py:19');
    assert.equal(byLine.results[0].symbol, 'BaseCookie.__parse_string');
    const trace = [
      'Traceback (most recent call last):',
      '  File "/home/me/project/pkg/cookies.py", line 15, in load',
      '    return self.__parse_string(rawdata)',
      '  File "/home/me/project/pkg/cookies.py", line 8, in set',
      "    raise CookieError('Illegal key %r' % (key,))",
      "pkg.cookies.CookieError: Illegal key 'a b'",
    ].join('\n');
    const traced = await engine.search(trace);
    assert.deepEqual(
      traced.results.slice(0, 2).map((item) => item.symbol),
      ['Morsel.set', 'BaseCookie.load'],
    );
    assert.equal(traced.results[0].reason, 'exact-path');
    await engine.close();
  });

  test('collectCandidates keeps each snippet once, at its strongest reason', async () => {
    const engine = await openEngine(fixture(python).root, { parsers: structuralParsers() });
    await engine.sync();
    const candidates = await collectCandidates(engine.store, describeTask('BaseCookie.load load cookies'), 64);
    const ids = candidates.map((candidate) => candidate.snippet.id);
    assert.equal(new Set(ids).size, ids.length);
    const load = candidates.find((candidate) => candidate.snippet.qualifiedName === 'BaseCookie.load');
    assert.equal(load?.reason, 'exact-qualified-symbol');
    await engine.close();
  });
});

describe('ordering, collapsing and cutting', () => {
  test('exact matches are never displaced, not even by many modified, cheaper, stronger full-text matches', async () => {
    const files: Record<string, string> = {
      'target.ts': `export function quotaGuard(limit: number): boolean {\n  return limit > 0;\n}\n${numberedLines(150, 'pad')}`,
    };
    for (let index = 0; index < 12; index++)
      files[`noise${index}.ts`] = `// quotaGuard quotaGuard quota guard quota guard\nexport const n${index} = ${index};\n`;
    const project = fixture(files);
    project.initGit();
    for (let index = 0; index < 12; index++)
      project.edit(`noise${index}.ts`, `// quotaGuard quota guard quotaGuard quota guard (edited)\nexport const n${index} = ${index};\n`);
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    assert.ok(engine.store.catalog.file('noise0.ts')?.modified);
    for (const semantic of [false, true]) {
      const result = await engine.search('quotaGuard', { semantic });
      assert.equal(result.results[0].path, 'target.ts', `semantic ${semantic}`);
      assert.equal(result.results[0].reason, 'exact-symbol');
      const firstWeaker = result.results.findIndex((item) => item.score < exactTierFloor);
      const lastExact = result.results.map((item) => item.score >= exactTierFloor - 8).lastIndexOf(true);
      assert.ok(firstWeaker === -1 || lastExact < firstWeaker);
    }
    await engine.close();
  });

  test('exact duplicate source collapses to one snippet and the manifest says so', async () => {
    const body = 'export function duplicatedHelper(): number {\n  return 42;\n}\n';
    const engine = await openEngine(fixture({ 'a/copy.ts': body, 'b/copy.ts': body }).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('duplicatedHelper');
    assert.equal(result.results.length, 1);
    assert.equal(result.results[0].path, 'a/copy.ts', 'ties break by path');
    assert.ok(result.manifest.entries.some((entry) => entry.path === 'b/copy.ts' && entry.reason === 'duplicate' && !entry.included));
    await engine.close();
  });

  test('windows overlapping by half or more collapse; smaller overlaps do not', async () => {
    // 100 lines of prose: text windows of 80 lines overlapping by 12.
    const prose = Array.from({ length: 100 }, (_, index) => `marker line ${index + 1} about overlapping windows`).join('\n');
    const engine = await openEngine(fixture({ 'notes.txt': prose }).root);
    await engine.sync();
    const rows = engine.store.chunks.currentSnippets('notes.txt');
    assert.equal(rows.length, 2);
    const result = await engine.search('overlapping windows marker');
    assert.equal(result.results.length, 2, 'a 12-line overlap of 80-line windows is less than half');
    const nested = await openEngine(fixture(python).root, { parsers: structuralParsers() });
    await nested.sync();
    const cookie = await nested.search('BaseCookie load __parse_string parsed_items');
    const ranges = cookie.results.filter((item) => item.path === 'pkg/cookies.py').map((item) => [item.startLine, item.endLine]);
    for (let i = 0; i < ranges.length; i++) {
      for (let j = i + 1; j < ranges.length; j++) {
        const overlap = Math.min(ranges[i][1], ranges[j][1]) - Math.max(ranges[i][0], ranges[j][0]) + 1;
        const smaller = Math.min(ranges[i][1] - ranges[i][0] + 1, ranges[j][1] - ranges[j][0] + 1);
        assert.ok(overlap * 2 < smaller, `${ranges[i].join('-')} and ${ranges[j].join('-')} overlap by half or more`);
      }
    }
    await engine.close();
    await nested.close();
  });

  test('equal scores order by modified state, then path, then line', async () => {
    const project = fixture({
      'b.ts': 'export const tieBreaker = 1;\n',
      'a.ts': 'export const tieBreaker = 1;;\n',
      'c.ts': 'export const tieBreaker = 1;;;\n',
    });
    project.initGit();
    project.edit('c.ts', 'export const tieBreaker = 1;;;;\n');
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('tieBreaker');
    assert.deepEqual(
      result.results.map((item) => item.path),
      ['c.ts', 'a.ts', 'b.ts'],
    );
    assert.ok(result.results[0].modified);
    await engine.close();
  });

  test('after literal evidence only a few weaker snippets ride along; the rest are listed as low-relevance', async () => {
    const files: Record<string, string> = { 'src/limiter.ts': 'export function rateLimiter(): void {}\n' };
    for (let index = 0; index < 10; index++)
      files[`src/mention${index}.ts`] = `// uses the rate limiter ${index}\nexport const m${index} = ${index};\n`;
    for (let index = 0; index < 40; index++)
      files[`src/other${index}.ts`] = `// unrelated module ${index} about parsing and rendering\nexport const o${index} = ${index};\n`;
    const engine = await openEngine(fixture(files).root, { parsers: structuralParsers() });
    await engine.sync();
    const lookup = await engine.search('rateLimiter');
    assert.deepEqual(
      lookup.results.map((item) => `${item.path} ${item.reason}`),
      ['src/limiter.ts exact-symbol'],
      'a pure lookup that hits needs no full text',
    );
    const result = await engine.search('rateLimiter rate limiter mentions');
    assert.equal(result.results[0].reason, 'exact-symbol');
    assert.ok(result.results.length <= 2, result.results.map((item) => item.path).join(', '));
    assert.ok(result.manifest.entries.some((entry) => entry.reason === 'low-relevance' && !entry.included));
    const question = await engine.search('where is the rate limiter used?');
    assert.ok(question.results.length >= 4, 'without literal evidence full-text results fill the list');
    await engine.close();
  });

  test("a question's chunks in the file its words spread over rank above a stray declaration named with one of them", async () => {
    // Each function of spread.py mentions one of the words; named.py and other.py declare names holding some.
    const words = ['rotation', 'archive', 'threshold', 'rollover', 'retention', 'compress'];
    const spread = words.map((word, index) => `def step_${index}(value):\n    # the ${word} of the log\n    return value\n`).join('\n');
    const project = fixture({
      'app/spread.py': spread,
      'app/named.py': 'def rotation_archive(value):\n    return value\n\n\ndef unrelated(value):\n    return value + 1\n',
      'app/other.py': 'def threshold_value(value):\n    return value * 2\n',
    });
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const paths = (await engine.search('how does the log rotation archive its files past the threshold?')).results.map(
      (result) => result.path,
    );
    const firstSpread = paths.indexOf('app/spread.py');
    const stray = paths.indexOf('app/other.py');
    assert.ok(firstSpread >= 0 && (stray < 0 || firstSpread < stray), paths.join(', '));
    await engine.close();
  });
});
