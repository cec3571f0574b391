import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { languageForPath } from '../../src/core/language';
import type { ChunkParser, ChunkSymbol, ParseInput, ParseOptions, ParseResult } from '../../src/core/parsing/chunkParser';
import { ParserChain } from '../../src/core/parsing/parserChain';
import { RegexParser } from '../../src/core/parsing/regexParser';
import { TreeSitterParser } from '../../src/core/parsing/treeSitterParser';

const repository = path.resolve(__dirname, '..', '..', '..');
const corpusRoot = path.join(repository, 'test', 'quality', 'declarations');
const grammarDir = path.join(repository, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm');
const queryDir = path.join(repository, 'grammars');
const options: ParseOptions = { windowLines: 80, overlapLines: 12, timeoutMs: 750 };

const temporary: string[] = [];
after(() => temporary.forEach((directory) => fs.rmSync(directory, { recursive: true, force: true })));

const treeSitter = new TreeSitterParser({ grammarDir, queryDir });
const regex = new RegexParser();
after(() => treeSitter.dispose());

function input(file: string, text: string, language = languageForPath(file)): ParseInput {
  return { path: file, language, text, lines: text.split(/\r\n|\r|\n/) };
}

/** Every distinct declaration in a result (parts of one declaration share one symbol). */
function symbols(result: ParseResult | undefined): ChunkSymbol[] {
  return [...new Set((result?.chunks ?? []).flatMap((chunk) => (chunk.symbol ? [chunk.symbol] : [])))];
}

function find(result: ParseResult | undefined, qualifiedName: string): ChunkSymbol | undefined {
  return symbols(result).find((symbol) => symbol.qualifiedName === qualifiedName);
}

interface Expected {
  files: Record<string, { declarations: Array<{ qualifiedName: string; kind: string; startLine: number }>; forbidden: string[] }>;
}

interface Score {
  expected: number;
  found: number;
  misses: string[];
  forbidden: string[];
}

/** Scores one parser over the labelled corpus of the given languages. */
async function scoreCorpus(parser: ChunkParser, languages: string[]): Promise<Map<string, Score>> {
  const scores = new Map<string, Score>();
  for (const language of languages) {
    const expected = JSON.parse(fs.readFileSync(path.join(corpusRoot, language, 'expected.json'), 'utf8')) as Expected;
    const score: Score = { expected: 0, found: 0, misses: [], forbidden: [] };
    for (const [file, labels] of Object.entries(expected.files)) {
      const text = fs.readFileSync(path.join(corpusRoot, language, file), 'utf8');
      const source = input(file.replace(/\.txt$/, ''), text);
      assert.equal(source.language, language, `${file} is named for its language`);
      const found = symbols(await parser.parse(source, { ...options, timeoutMs: 5000 }));
      for (const label of labels.declarations) {
        score.expected++;
        const hit = found.some(
          (symbol) => symbol.qualifiedName === label.qualifiedName && symbol.kind === label.kind && symbol.startLine === label.startLine,
        );
        if (hit) score.found++;
        else score.misses.push(`${language}/${file}: ${label.kind} ${label.qualifiedName} @${label.startLine}`);
      }
      for (const symbol of found) {
        if (labels.forbidden.includes(symbol.name) || labels.forbidden.includes(symbol.qualifiedName)) {
          score.forbidden.push(`${language}/${file}: ${symbol.kind} ${symbol.qualifiedName} @${symbol.startLine}`);
        }
      }
    }
    scores.set(language, score);
  }
  return scores;
}

function summarize(label: string, scores: Map<string, Score>): { recall: number; misses: string[]; forbidden: string[] } {
  let expected = 0;
  let found = 0;
  const misses: string[] = [];
  const forbidden: string[] = [];
  for (const [language, score] of scores) {
    expected += score.expected;
    found += score.found;
    misses.push(...score.misses);
    forbidden.push(...score.forbidden);
    console.log(`  ${label} ${language}: ${score.found}/${score.expected}`);
  }
  const recall = expected === 0 ? 0 : found / expected;
  console.log(`${label} corpus recall: ${(recall * 100).toFixed(1)}% (${found}/${expected}); forbidden: ${forbidden.length}`);
  if (misses.length > 0) console.log(`  misses:\n    ${misses.join('\n    ')}`);
  return { recall, misses, forbidden };
}

const allLanguages = ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java', 'csharp', 'cpp', 'c', 'php', 'ruby', 'bash'];

describe('structural parsing: labelled corpus', () => {
  test('tree-sitter finds at least 98% of labelled declarations and no forbidden ones', async () => {
    const { recall, forbidden } = summarize('tree-sitter', await scoreCorpus(treeSitter, allLanguages));
    assert.deepEqual(forbidden, []);
    assert.ok(recall >= 0.98, `recall ${recall} is below 0.98`);
  });

  test('regex fallback covers TypeScript, JavaScript, Python and Go with no forbidden declarations', async () => {
    const { recall, forbidden } = summarize('regex', await scoreCorpus(regex, ['typescript', 'tsx', 'javascript', 'python', 'go']));
    assert.deepEqual(forbidden, []);
    assert.ok(recall >= 0.9, `regex recall ${recall} is below 0.9`);
  });

  test('chunks cover every non-blank line and respect declaration ranges', async () => {
    const text = fs.readFileSync(path.join(corpusRoot, 'typescript', 'overloads.ts.txt'), 'utf8');
    const source = input('overloads.ts', text);
    const result = await treeSitter.parse(source, options);
    assert.ok(result);
    source.lines.forEach((line, index) => {
      if (line.trim() === '') return;
      const covered = result.chunks.some((chunk) => chunk.startLine <= index + 1 && index + 1 <= chunk.endLine);
      assert.ok(covered, `line ${index + 1} is in some chunk`);
    });
    for (const chunk of result.chunks) {
      assert.ok(chunk.startLine <= chunk.endLine);
      if (!chunk.symbol) continue;
      assert.ok(chunk.startLine <= chunk.symbol.startLine && chunk.symbol.startLine <= chunk.symbol.endLine);
      assert.ok(chunk.references && chunk.references.length <= 40);
    }
    assert.ok(result.imports === undefined || result.imports.length <= 50);
  });
});

describe('structural parsing: chunk shape', () => {
  test('a large declaration becomes bounded overlapping parts sharing one symbol', async () => {
    const body = Array.from({ length: 200 }, (_, index) => `    total += ${index};`).join('\n');
    const text = `export class Big {\n  sum(): number {\n    let total = 0;\n${body}\n    return total;\n  }\n}\n\nfunction small() {}\nfunction tiny() {}\n`;
    for (const parser of [treeSitter, regex]) {
      const result = await parser.parse(input('big.ts', text), options);
      assert.ok(result, `${parser.kind} parses`);
      const parts = result.chunks.filter((chunk) => chunk.symbol?.qualifiedName === 'Big.sum');
      assert.ok(parts.length >= 3, `${parser.kind} splits Big.sum`);
      assert.ok(
        parts.every((part) => part.chunkKind === 'part' && part.endLine - part.startLine + 1 <= 80 && part.symbol === parts[0].symbol),
      );
      for (let index = 1; index < parts.length; index++) assert.equal(parts[index].startLine, parts[index - 1].startLine + 68);
      const small = result.chunks.find((chunk) => chunk.symbol?.name === 'small');
      assert.deepEqual(
        [small?.chunkKind, small?.startLine, small?.endLine],
        ['declaration', 208, 208],
        `${parser.kind} keeps small declarations small`,
      );
    }
  });

  test('top-level statements between declarations land in window chunks', async () => {
    const text = 'const a = 1;\nconsole.log(a);\n\nfunction f() {}\n\nconsole.log("between");\n\nfunction g() {}\nmain();\n';
    const result = await treeSitter.parse(input('windows.ts', text), options);
    const windows = result?.chunks.filter((chunk) => chunk.chunkKind === 'window').map((chunk) => [chunk.startLine, chunk.endLine]);
    assert.deepEqual(windows, [
      [1, 2],
      [6, 6],
      [9, 9],
    ]);
  });

  test('symbols carry signature, parent, references and file imports', async () => {
    const text =
      "import { Transport } from './transport';\n\nexport class Session {\n  send(message: string): void {\n    this.transport.write(encode(message));\n  }\n}\n";
    const result = await treeSitter.parse(input('session.ts', text), options);
    const send = result?.chunks.find((chunk) => chunk.symbol?.qualifiedName === 'Session.send');
    assert.deepEqual(result?.imports, ['./transport']);
    assert.equal(send?.symbol?.signature, 'send(message: string): void');
    assert.equal(send?.symbol?.parent, 'Session');
    assert.deepEqual(send?.references, ['message', 'transport', 'write', 'encode']);
  });
});

describe('structural parsing: grammars', () => {
  test('a language is counted by the grammar the manifest parses it with, C with C++', () => {
    const chain = new ParserChain([regex, treeSitter]);
    assert.equal(chain.grammarOf('c'), chain.grammarOf('cpp'));
    assert.equal(chain.grammarOf('cpp'), 'tree-sitter-cpp.wasm');
    assert.notEqual(chain.grammarOf('typescript'), chain.grammarOf('tsx'));
    assert.notEqual(chain.grammarOf('python'), chain.grammarOf('go'));
    // A language no structural parser takes is its own group.
    assert.equal(chain.grammarOf('markdown'), 'markdown');
  });
});

describe('structural parsing: fallbacks and bad input', () => {
  test('regex fallback parses TypeScript, Python and Go', async () => {
    const ts = await regex.parse(
      input('a.ts', '// class Fake {}\nexport class A<T> {\n  run(x: T): void {}\n}\nexport const f = (n: number) => n;\n'),
      options,
    );
    assert.equal(ts?.parser, 'regex');
    assert.deepEqual(
      symbols(ts).map((s) => [s.qualifiedName, s.kind, s.startLine]),
      [
        ['A', 'class', 2],
        ['A.run', 'method', 3],
        ['f', 'function', 5],
      ],
    );
    const py = await regex.parse(
      input('a.py', 'class A:\n    """def fake(): pass"""\n    @property\n    def b(self):\n        return 1\n'),
      options,
    );
    assert.deepEqual(
      symbols(py).map((s) => [s.qualifiedName, s.kind, s.startLine]),
      [
        ['A', 'class', 1],
        ['A.b', 'accessor', 4],
      ],
    );
    const go = await regex.parse(
      input('a.go', 'package a\n\n// func Fake() {}\nfunc (s *Stack[T]) Push(v T) {\n\ts.items = append(s.items, v)\n}\n'),
      options,
    );
    assert.deepEqual(
      symbols(go).map((s) => [s.qualifiedName, s.kind, s.startLine]),
      [['Stack.Push', 'method', 4]],
    );
    assert.equal(await regex.parse(input('a.rs', 'fn main() {}'), options), undefined);
    assert.equal(regex.supports('rust'), false);
  });

  test('a missing grammar directory declines with grammar-missing and never throws', async () => {
    const parser = new TreeSitterParser({ grammarDir: path.join(os.tmpdir(), 'no-such-grammar-dir-pk'), queryDir });
    const source = input('a.ts', 'export function f() {}\n');
    assert.equal(await parser.parse(source, options), undefined);
    assert.equal(parser.lastDeclineReason(), 'grammar-missing');
    assert.equal((await regex.parse(source, options))?.parser, 'regex');
    parser.dispose();
  });

  test('in a parser chain a missing grammar falls back to regex, then to text windows', async () => {
    const chain = new ParserChain([
      new TreeSitterParser({ grammarDir: path.join(os.tmpdir(), 'no-such-grammar-dir-pk'), queryDir }),
      new RegexParser(),
    ]);
    const typescript = await chain.parse(input('a.ts', 'export function f() {}\n'), options);
    assert.equal(typescript.parser, 'regex');
    assert.equal(typescript.fallbackReason, 'tree-sitter: grammar-missing');
    const rust = await chain.parse(input('a.rs', 'fn main() {}\n'), options);
    assert.equal(rust.parser, 'text');
    chain.dispose();
  });

  test('a corrupt grammar file declines with grammar-failed and never throws', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'pk-grammar-'));
    temporary.push(directory);
    fs.writeFileSync(path.join(directory, 'tree-sitter-typescript.wasm'), Buffer.from('this is not webassembly at all'));
    fs.writeFileSync(path.join(directory, 'tree-sitter-python.wasm'), Buffer.alloc(0));
    const parser = new TreeSitterParser({ grammarDir: directory, queryDir });
    assert.equal(await parser.parse(input('a.ts', 'export function f() {}\n'), options), undefined);
    assert.equal(parser.lastDeclineReason(), 'grammar-failed');
    assert.equal(await parser.parse(input('a.py', 'def f():\n    pass\n'), options), undefined);
    assert.equal(parser.lastDeclineReason(), 'grammar-failed');
    parser.dispose();
  });

  test('a missing query directory declines instead of throwing', async () => {
    const parser = new TreeSitterParser({ grammarDir, queryDir: path.join(os.tmpdir(), 'no-such-query-dir-pk') });
    assert.equal(await parser.parse(input('a.ts', 'export function f() {}\n'), options), undefined);
    assert.equal(parser.lastDeclineReason(), 'grammar-missing');
    parser.dispose();
  });

  test('a 500 KB single-line minified file ends in a bounded decline', async () => {
    const unit = 'function a0(b,c){return b+c*2};var d0=function(e){return e&&e.f?e.f(1):null};class G0{h(i){return i}};';
    const text = unit.repeat(Math.ceil((500 * 1024) / unit.length));
    for (const parser of [treeSitter, regex]) {
      const started = performance.now();
      const result = await parser.parse(input('bundle.min.js', text), options);
      const elapsed = performance.now() - started;
      assert.equal(result, undefined, `${parser.kind} leaves minified code to text windows`);
      assert.equal(parser.lastDeclineReason?.(), 'minified');
      assert.ok(elapsed < 3000, `${parser.kind} took ${elapsed} ms`);
    }
  });

  test('a parse over its time bound declines with timeout', async () => {
    const text = Array.from({ length: 40000 }, (_, index) => `function f${index}(a) { return a + ${index}; }`).join('\n');
    const started = performance.now();
    const result = await treeSitter.parse(input('huge.js', text), { ...options, timeoutMs: 5 });
    assert.equal(result, undefined);
    assert.equal(treeSitter.lastDeclineReason(), 'timeout');
    assert.ok(performance.now() - started < 5000, 'the timeout is bounded');
    const after = await treeSitter.parse(input('small.js', 'function ok() {}\n'), options);
    assert.equal(find(after, 'ok')?.startLine, 1, 'the parser recovers after a cancelled parse');
  });

  test('deeply nested code ends in a bounded result or decline', async () => {
    const brackets = `const deep = ${'['.repeat(5000)}${']'.repeat(5000)};\nfunction after() {}\n`;
    const blocks = `function outer() {\n${'{\n'.repeat(5000)}${'}\n'.repeat(5000)}}\n`;
    const functions = `${Array.from({ length: 5000 }, (_, index) => `function f${index}() {`).join('\n')}\n${'}\n'.repeat(5000)}`;
    const python =
      Array.from({ length: 1000 }, (_, index) => `${' '.repeat(index)}def f${index}():`).join('\n') + `\n${' '.repeat(1000)}pass\n`;
    for (const [file, text] of [
      ['brackets.js', brackets],
      ['blocks.js', blocks],
      ['functions.js', functions],
      ['nested.py', python],
    ]) {
      for (const parser of [treeSitter, regex]) {
        const started = performance.now();
        const result = await parser.parse(input(file, text), options);
        assert.ok(performance.now() - started < 5000, `${parser.kind} on ${file} is bounded`);
        if (result) assert.ok(result.chunks.length < 20000, `${parser.kind} on ${file} keeps chunks bounded`);
      }
    }
    const result = await treeSitter.parse(input('brackets.js', brackets), options);
    assert.equal(find(result, 'after')?.startLine, 2);
  });

  test('valid declarations outside a syntax error are kept', async () => {
    const ts =
      'export class Before {\n  ok() {}\n}\n\nfunction broken( {\n  let x = ;\n  if (\n}\n\nexport function after(a: number) {\n  return a;\n}\n';
    const result = await treeSitter.parse(input('broken.ts', ts), options);
    assert.equal(find(result, 'Before')?.startLine, 1);
    assert.equal(find(result, 'Before.ok')?.startLine, 2);
    assert.equal(find(result, 'after')?.startLine, 10);
    const py = 'def good():\n    return 1\n\ndef bad(:\n    return (\n\nclass Later:\n    def method(self):\n        pass\n';
    const python = await treeSitter.parse(input('broken.py', py), options);
    assert.equal(find(python, 'good')?.startLine, 1);
    assert.equal(find(python, 'Later.method')?.startLine, 8);
  });

  test('mixed line endings and byte-order marks give editor line numbers', async () => {
    const text = 'const a = 1;\r\nfunction first() {}\rfunction second() {}\n\r\nclass Third {\r  method() {}\r\n}\n';
    const expected = [
      ['first', 2],
      ['second', 3],
      ['Third', 5],
      ['Third.method', 6],
    ];
    for (const parser of [treeSitter, regex]) {
      for (const withMark of [false, true]) {
        const source = input('endings.ts', withMark ? `\uFEFF${text}` : text);
        const result = await parser.parse(source, options);
        assert.deepEqual(
          expected.map(([name]) => find(result, String(name))?.startLine),
          expected.map(([, line]) => line),
          `${parser.kind}, mark ${withMark}`,
        );
        assert.equal(find(result, 'Third')?.endLine, 7);
      }
    }
    const python = await treeSitter.parse(input('endings.py', 'import os\r\rdef a():\r    pass\r\nclass B:\n    pass\r'), options);
    assert.deepEqual(
      symbols(python).map((symbol) => [symbol.name, symbol.startLine, symbol.endLine]),
      [
        ['a', 3, 4],
        ['B', 5, 6],
      ],
    );
  });

  test('concurrent parses of different languages do not interfere', async () => {
    const files: Array<[string, string, string]> = [
      ['a.ts', 'export class A { m() {} }\n', 'A.m'],
      ['b.py', 'class B:\n    def m(self):\n        pass\n', 'B.m'],
      ['c.go', 'package c\n\nfunc (c *C) M() {}\n', 'C.M'],
      ['d.rs', 'struct D;\nimpl D { fn m(&self) {} }\n', 'D.m'],
      ['e.rb', 'class E\n  def m; end\nend\n', 'E.m'],
    ];
    const results = await Promise.all(files.map(([file, text]) => treeSitter.parse(input(file, text), options)));
    results.forEach((result, index) => assert.ok(find(result, files[index][2]), `${files[index][0]} has ${files[index][2]}`));
  });

  test('unsupported languages and files without declarations decline with a reason', async () => {
    assert.equal(treeSitter.supports('markdown'), false);
    assert.equal(await treeSitter.parse(input('notes.md', '# class Heading\n'), options), undefined);
    assert.equal(treeSitter.lastDeclineReason(), 'unsupported');
    assert.equal(await treeSitter.parse(input('data.ts', 'export const data = [1, 2, 3];\n'), options), undefined);
    assert.equal(treeSitter.lastDeclineReason(), 'no-declarations');
    assert.match(treeSitter.version, /^tree-sitter-\d+-[0-9a-f]{12}$/);
  });
});
