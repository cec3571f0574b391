import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TreeSitterParser } from '../../src/core/parsing/treeSitterParser';
import { lineOwners, ownText } from '../../src/core/tokens';
import * as path from 'node:path';

const repository = path.resolve(__dirname, '..', '..', '..');

describe('which chunk indexes a line', () => {
  test('the smallest chunk holding a line owns it', () => {
    const owners = lineOwners(
      [
        { startLine: 1, endLine: 10 },
        { startLine: 3, endLine: 5 },
      ],
      10,
    );
    assert.deepEqual([...owners.slice(1)], [0, 0, 1, 1, 1, 0, 0, 0, 0, 0]);
  });

  test('between parts of one size, the inner declaration (the later-starting one) owns the lines', async () => {
    // A class of 300 lines and a method of 120 lines in it are both cut into 80-line parts.
    const body = Array.from({ length: 118 }, (_, index) => `        total += ${index}; // dispatch step ${index}`);
    const fields = Array.from({ length: 170 }, (_, index) => `    int field${index};`);
    const lines = ['class Outer {', ...fields, '    int dispatch() {', '        int total = 0;', ...body, '    }', '}'];
    const parser = new TreeSitterParser({
      grammarDir: path.join(repository, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'),
      queryDir: path.join(repository, 'grammars'),
    });
    try {
      const text = lines.join('\n');
      const result = await parser.parse(
        { path: 'Outer.java', language: 'java', text, lines },
        { windowLines: 80, overlapLines: 12, timeoutMs: 0 },
      );
      assert.ok(result, 'parsed');
      const chunks = result.chunks;
      const owners = lineOwners(chunks, lines.length, (index) => chunks[index].symbol?.startLine ?? 0);
      const methodLine = lines.indexOf('        total += 30; // dispatch step 30') + 1;
      const owner = chunks[owners[methodLine]];
      assert.equal(owner.symbol?.qualifiedName, 'Outer.dispatch', `line ${methodLine} is indexed with ${owner.symbol?.qualifiedName}`);
      const equalOuter = chunks.find(
        (chunk, index) =>
          chunk.symbol?.qualifiedName === 'Outer' &&
          chunk.startLine <= methodLine &&
          methodLine <= chunk.endLine &&
          chunk.endLine - chunk.startLine === owner.endLine - owner.startLine &&
          !ownText(lines, owners, chunk, index).includes('dispatch step 30'),
      );
      assert.ok(equalOuter, 'a class part of the same size holds the line but does not index it');
    } finally {
      parser.dispose();
    }
  });
});
