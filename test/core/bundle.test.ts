import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

/**
 * extension.js runs on the editor's extension host and only passes messages to the worker, so
 * it must not carry SQLite or tree-sitter (issue 15): esbuild's metafile (written by esbuild.mjs)
 * lists every input of every bundle.
 */

const repository = path.resolve(__dirname, '..', '..', '..');
const metafilePath = path.join(repository, 'dist', 'metafile.json');

interface Metafile {
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

function bundleInputs(output: string): { bytes: number; inputs: string[] } {
  assert.ok(fs.existsSync(metafilePath), `${metafilePath} is missing: run \`node esbuild.mjs\` (npm run build) first`);
  const metafile = JSON.parse(fs.readFileSync(metafilePath, 'utf8')) as Metafile;
  const bundle = metafile.outputs[output];
  assert.ok(bundle, `${output} is in the metafile (${Object.keys(metafile.outputs).join(', ')})`);
  return { bytes: bundle.bytes, inputs: Object.keys(bundle.inputs) };
}

// zod and secretlint belong to the worker too: agent tools are checked and run there (`tool` request).
const runtimes = /(^|\/)node_modules\/(sql\.js|web-tree-sitter|@vscode\/tree-sitter-wasm|zod|@secretlint\/[^/]+)\//;
const engineModules =
  /^src\/core\/(store|sqlite|sync|databaseFile|engine|parsing\/.*|retrieval\/(retrieve|candidates|hybrid|vectors)|tools\/.*)\.ts$/;

test('extension.js bundles no sql.js, tree-sitter, zod or secretlint and none of the engine modules that load them', () => {
  const extension = bundleInputs('dist/extension.js');
  assert.deepEqual(
    extension.inputs.filter((input) => runtimes.test(input) || engineModules.test(input)),
    [],
  );
  console.log(`extension.js: ${extension.bytes} bytes from ${extension.inputs.length} inputs`);
});

test('the check can fail: the worker bundle, which runs the engine, does carry them', () => {
  const worker = bundleInputs('dist/worker.js');
  assert.ok(
    worker.inputs.some((input) => /node_modules\/sql\.js\//.test(input)),
    'sql.js is in worker.js',
  );
  assert.ok(
    worker.inputs.some((input) => /node_modules\/web-tree-sitter\//.test(input)),
    'web-tree-sitter is in worker.js',
  );
  assert.ok(worker.inputs.includes('src/core/store.ts'));
});

test('parseWorker.js, started once per core for large syncs, carries tree-sitter but not sql.js or the store', () => {
  const parseWorker = bundleInputs('dist/parseWorker.js');
  assert.ok(parseWorker.inputs.some((input) => /node_modules\/web-tree-sitter\//.test(input)));
  assert.deepEqual(
    parseWorker.inputs.filter((input) => /node_modules\/sql\.js\//.test(input) || input === 'src/core/store.ts'),
    [],
  );
});
