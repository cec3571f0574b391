import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import type { ChunkParser, ParseInput, ParseOptions, ParseResult } from '../../src/core/parsing/chunkParser';
import { TreeSitterParser, parseBudgetMs } from '../../src/core/parsing/treeSitterParser';
import { fixtureFactory, openEngine } from './fixtures';

const fixture = fixtureFactory();
const repository = path.resolve(__dirname, '..', '..', '..');

/** The real tree-sitter parser, recording the bound each parse was given (no recipe, so the sync parses inline). */
class RecordingParser implements ChunkParser {
  readonly kind = 'tree-sitter' as const;
  readonly version: string;
  readonly bounds: Array<{ path: string; length: number; timeoutMs: number }> = [];
  private readonly inner = new TreeSitterParser({
    grammarDir: path.join(repository, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'),
    queryDir: path.join(repository, 'grammars'),
  });

  constructor() {
    this.version = this.inner.version;
  }

  supports(language: string): boolean {
    return this.inner.supports(language);
  }

  parse(input: ParseInput, options: ParseOptions): Promise<ParseResult | undefined> {
    this.bounds.push({ path: input.path, length: input.text.length, timeoutMs: options.timeoutMs });
    return this.inner.parse(input, options);
  }

  dispose(): void {
    this.inner.dispose();
  }
}

describe('parse time bound', () => {
  test('a file gets a bound that a loaded machine can meet, growing with its size, never over 3 s', () => {
    // jsoup's 54 KB HttpConnection.java took 336 ms at load 16 on 2 cores; 100 ms made it text windows.
    assert.ok(parseBudgetMs(54_000, 0) >= 700, String(parseBudgetMs(54_000, 0)));
    assert.ok(parseBudgetMs(1_000, 0) >= 250);
    assert.ok(parseBudgetMs(200_000, 0) > parseBudgetMs(54_000, 0));
    assert.equal(parseBudgetMs(50_000_000, 0), 3000);
    // A caller's tighter bound still wins (tests and tools that want a quick answer).
    assert.equal(parseBudgetMs(54_000, 5), 5);
  });

  test('the sync gives the parser no tighter bound than its own by size', async () => {
    const methods = Array.from({ length: 900 }, (_, index) => `    int m${index}(int a) { return a + ${index}; }`);
    const project = fixture({ 'src/Big.java': ['class Big {', ...methods, '}', ''].join('\n') });
    const parser = new RecordingParser();
    const engine = await openEngine(project.root, { parsers: [parser], options: { useGit: false } });
    try {
      await engine.sync();
      const big = parser.bounds.find((bound) => bound.path === 'src/Big.java');
      assert.ok(big && big.length > 30_000, 'the fixture is a large file');
      const budget = parseBudgetMs(big.length, big.timeoutMs);
      assert.equal(budget, parseBudgetMs(big.length, 0), `sync bounded the parse at ${big.timeoutMs} ms`);
      assert.ok((await engine.findSymbol({ name: 'm899' })).matches.length > 0, 'the file was parsed structurally');
    } finally {
      await engine.close();
      parser.dispose();
    }
  });
});
