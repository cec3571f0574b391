import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
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

function bundleInputs(output: string, file = metafilePath): { bytes: number; inputs: string[] } {
  assert.ok(fs.existsSync(file), `${file} is missing: run \`node esbuild.mjs\` (npm run build) first`);
  const metafile = JSON.parse(fs.readFileSync(file, 'utf8')) as Metafile;
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

/** The packaged (production) bundles' metafile: esbuild.mjs --production built into a scratch folder, dist/ untouched. */
function productionBuild(): { directory: string; metafile: string } {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'pk-bundle-'));
  const built = spawnSync(process.execPath, [path.join(repository, 'esbuild.mjs'), '--production', '--outdir', directory], {
    cwd: repository,
    encoding: 'utf8',
  });
  assert.equal(built.status, 0, built.stderr);
  return { directory, metafile: path.join(directory, 'metafile.json') };
}

/** The modules that answer @project once asked: dist/chat.js carries them, extension.js loads it at the first request. */
const chatHandlerModules = /^src\/vscode\/(chatAnswer|chatCommands|chatHandlers|curationChat|queryRewrite)\.ts$/;

test('the packaged extension.js is at most 60 KB, carries no runtime or engine module, and loads the chat handlers from chat.js', () => {
  const { directory, metafile } = productionBuild();
  try {
    // The output names are relative to the working directory, which is the repository.
    const out = path.relative(repository, directory).split(path.sep).join('/');
    const extension = bundleInputs(`${out}/extension.js`, metafile);
    const chat = bundleInputs(`${out}/chat.js`, metafile);
    console.log(`production extension.js: ${extension.bytes} bytes from ${extension.inputs.length} inputs; chat.js: ${chat.bytes} bytes`);
    assert.ok(extension.bytes <= 60_000, `extension.js is ${extension.bytes} bytes, over 60,000`);
    // chat.js runs on the extension host too: the same bound on what it may carry.
    for (const bundle of [extension, chat])
      assert.deepEqual(
        bundle.inputs.filter((input) => runtimes.test(input) || engineModules.test(input)),
        [],
      );
    assert.deepEqual(
      extension.inputs.filter((input) => chatHandlerModules.test(input)),
      [],
    );
    assert.ok(chat.inputs.includes('src/vscode/chatAnswer.ts') && chat.inputs.includes('src/vscode/curationChat.ts'));
    // The one way extension.js reaches them: a run-time require of the file beside it.
    assert.match(fs.readFileSync(path.join(directory, 'extension.js'), 'utf8'), /require\("\.\/chat\.js"\)/);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
});
