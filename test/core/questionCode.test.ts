import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codeText, symbolTextCeiling } from '../../src/core/retrieval/candidates';
import { fixtureFactory, openEngine, structuralParsers } from './fixtures';

const fixture = fixtureFactory();

/** Files that share no word with the questions, so that the questions' words are rare in the index, as in a real project. */
const unrelatedFiles = {
  'src/other.ts': 'export function page(size: number) {\n  return size\n}\n',
  'src/more.ts': 'export function unrelated(a: number) {\n  return a + 1\n}\n',
};

/** Indexes the project at `root` and checks that `question`'s first result is the declaration `expected`. */
async function assertFirstSymbol(root: string, question: string, expected: string): Promise<void> {
  const engine = await openEngine(root, { parsers: structuralParsers() });
  await engine.sync();
  const result = await engine.search(question);
  assert.equal(result.results[0]?.symbol, expected, JSON.stringify(result.results.map((item) => item.symbol ?? item.path)));
  await engine.close();
}

describe("a declaration's code apart from its comments", () => {
  test('the code is the declaration from its first line on, without the doc comment above it', () => {
    const typescript = [
      '/**',
      ' * Finds the character set a page declares.',
      ' */',
      'export function detect(html: string) {',
      '  // Look for the meta tag first.',
      '  return html.match(/<meta[^>]*>/)',
      '}',
    ];
    assert.equal(codeText({ startLine: 1, endLine: 7, symbolStart: 4 }, typescript), typescript.slice(3).join('\n'));
    // A Python docstring follows the signature: it is part of the declaration.
    const python = ['def load(self):', '    """Load it."""', '    return 1'];
    assert.equal(codeText({ startLine: 1, endLine: 3, symbolStart: 1 }, python), python.join('\n'));
    // The later part of a long declaration is all code.
    assert.equal(codeText({ startLine: 6, endLine: 7, symbolStart: 4 }, typescript), typescript.slice(5).join('\n'));
  });
});

describe("the symbol-text ceiling of a question's names", () => {
  test('a name holding a minor share of a question gets part of the five points above full text; other requests all of them', () => {
    assert.equal(symbolTextCeiling(0.25, true), 45);
    assert.equal(symbolTextCeiling(0.6, true), 45);
    assert.ok(Math.abs(symbolTextCeiling(0.1, true) - 42) < 1e-9);
    assert.equal(symbolTextCeiling(0.05, false), 45);
  });

  test('a question ranks the code that does it above a short declaration named by one of its minor words', async () => {
    // `tag` holds the question's most common word in its name and its doc comment repeats it; `detect` holds the rarer ones in its code.
    const project = fixture({
      'src/tags.ts': [
        '/**',
        ' * Makes a tag from the given tag name, for a page. The tag is not added to any set of tags.',
        ' */',
        'export function tag(tagName: string) {',
        '  return { tagName, tag: tagName }',
        '}',
        '',
      ].join('\n'),
      'src/sniff.ts': [
        'export function detect(html: string, given: string | undefined) {',
        '  if (given) return given',
        '  const metaTags = html.match(/<meta[^>]*>/g) ?? []',
        '  for (const meta of metaTags) {',
        '    const found = /charset="?([^" >]+)/.exec(meta)',
        '    if (found) return found[1]',
        '  }',
        "  const encoding = 'utf-8'",
        '  return encoding',
        '}',
        '',
      ].join('\n'),
      ...unrelatedFiles,
    });
    await assertFirstSymbol(project.root, "when no encoding is given, how is a page's character set found from its meta tag?", 'detect');
  });
});

describe("a question's full-text candidates by their code", () => {
  test('the function whose code holds the words goes above one whose doc comment only states them', async () => {
    // Neither name holds a word of the question; `legacy`'s doc comment has most of them, `gather`'s code does the collecting.
    const project = fixture({
      'src/legacy.ts': [
        '/**',
        ' * Repeated query keys are collected into a list: keys, lists.',
        ' */',
        'export function legacy(input: string) {',
        '  return input',
        '}',
        '',
      ].join('\n'),
      'src/search.ts': [
        'export function gather(query: string) {',
        '  const collected = new Map<string, string[]>()',
        "  for (const pair of query.split('&')) {",
        "    const [key, value] = pair.split('=')",
        '    const values = collected.get(key) ?? []',
        '    const repeated = values.length > 0',
        '    values.push(value)',
        '    if (!repeated) collected.set(key, values)',
        '  }',
        '  return collected',
        '}',
        '',
      ].join('\n'),
      ...unrelatedFiles,
    });
    await assertFirstSymbol(project.root, 'how are repeated query keys collected into a list of values?', 'gather');
  });
});

describe("a question's containers", () => {
  test("a class's method that does what the question asks goes above the class that holds it", async () => {
    // The class's chunk holds every word its members hold and its doc comment states them; the method is what behaves.
    const project = fixture({
      'src/dependency.ts': [
        '/**',
        ' * A dependency of a recipe on another recipe, one link of a chain of dependencies.',
        ' */',
        'export class Dependency {',
        '  constructor(',
        '    readonly recipe: string,',
        '    readonly dependencies: string[],',
        '  ) {}',
        '',
        '  depends(other: string) {',
        '    return this.dependencies.includes(other)',
        '  }',
        '}',
        '',
      ].join('\n'),
      ...unrelatedFiles,
    });
    const engine = await openEngine(project.root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('how is a recipe that depends on itself through a chain of dependencies detected?');
    const first = result.results[0];
    assert.equal(first?.kind, 'method', JSON.stringify(result.results.map((item) => `${item.symbol} ${item.kind}`)));
    await engine.close();
  });
});
