import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { heapGrowingPercent, limitHeapGrowth } from '../../src/cli/heapGrowth';

const compiledModule = path.resolve(__dirname, '..', '..', 'src', 'cli', 'heapGrowth.js');

describe('heap growth', () => {
  test('a heap growth named on the command line or in NODE_OPTIONS is left as it is', () => {
    assert.equal(limitHeapGrowth(['--heap-growing-percent=50'], ''), false);
    assert.equal(limitHeapGrowth([], '--max-old-space-size=512 --heap_growing_percent=50'), false);
  });

  test('otherwise the process takes the bound, and V8 accepts the flag after start', () => {
    const script = `const g = require(${JSON.stringify(compiledModule)}); process.stdout.write(String(g.limitHeapGrowth([], '')));`;
    const output = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    assert.equal(output, 'true');
    assert.ok(heapGrowingPercent > 0 && heapGrowingPercent < 100);
  });
});
