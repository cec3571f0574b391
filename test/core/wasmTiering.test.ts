import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { baselineWasmFlags, quickCommand, useBaselineWasm } from '../../src/cli/wasmTiering';

const compiledModule = path.resolve(__dirname, '..', '..', 'src', 'cli', 'wasmTiering.js');

describe('WebAssembly tiering of the CLI', () => {
  test('only a short command on an index that exists runs on baseline code', () => {
    for (const command of ['search', 'context', 'get', 'symbols', 'health', 'find-symbol', 'references', 'outline', 'pins', 'memory']) {
      assert.equal(quickCommand(command, true), true, command);
      // Without an index the command indexes first, a run as long as `pk index`.
      assert.equal(quickCommand(command, false), false, command);
    }
    assert.equal(quickCommand('index', true), false);
    assert.equal(quickCommand('mcp', true), false);
    assert.equal(quickCommand(undefined, true), false);
  });

  test('a tiering flag named on the command line or in NODE_OPTIONS is left as it is', () => {
    assert.equal(useBaselineWasm(['--liftoff-only'], ''), false);
    assert.equal(useBaselineWasm(['--wasm-dynamic-tiering'], ''), false);
    assert.equal(useBaselineWasm([], '--max-old-space-size=512 --no-wasm_tier_up'), false);
  });

  test('otherwise V8 takes both flags after start, without a word on stderr', () => {
    const script = `const t = require(${JSON.stringify(compiledModule)}); process.stdout.write(String(t.useBaselineWasm([], '')));`;
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    assert.equal(result.stdout, 'true');
    // V8 reports a flag it does not know on stderr and goes on: on a Node without these flags this fails.
    assert.equal(result.stderr, '');
    assert.equal(result.status, 0);
    assert.deepEqual([...baselineWasmFlags], ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up']);
  });
});
