// Bundles the CLI (and, once they exist, the extension and its worker) and copies the WASM
// files they load at run time next to them in dist/.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const production = process.argv.includes('--production');
const root = path.dirname(new URL(import.meta.url).pathname);
// `--outdir DIR` builds elsewhere (test/core/bundle.test.ts measures a production build without touching dist/).
const outdirFlag = process.argv.indexOf('--outdir');
const dist = outdirFlag > 0 ? path.resolve(process.argv[outdirFlag + 1]) : path.join(root, 'dist');
fs.mkdirSync(dist, { recursive: true });

const entryPoints = {
  cli: 'src/cli/main.ts',
};
// The benchmark is a development tool: a production (packaging) build leaves it out.
const optional = {
  extension: 'src/vscode/extension.ts',
  // What @project does once asked, loaded by the participant at its first request (chatHandlers.ts).
  chat: 'src/vscode/chatHandlers.ts',
  worker: 'src/core/worker/engineHost.ts',
  // The parse pool's threads (src/core/worker/parsePool.ts looks for it beside the bundle).
  parseWorker: 'src/core/worker/parseWorker.ts',
  ...(production ? {} : { bench: 'test/bench/bench.ts' }),
};
for (const [name, file] of Object.entries(optional)) {
  if (fs.existsSync(path.join(root, file))) entryPoints[name] = file;
}

// extension.js loads dist/chat.js at run time (`require('./chat.js')` in chatParticipant.ts): kept as
// a require of the file beside it instead of being bundled in, so activation never parses the chat handlers.
const chatBundle = {
  name: 'chat-bundle',
  setup(build) {
    build.onResolve({ filter: /^\.\/chat\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};

const built = await esbuild.build({
  entryPoints,
  // dist/metafile.json records every bundle's inputs: test/core/bundle.test.ts checks that
  // extension.js carries no sql.js or tree-sitter (it is not packaged: .vscodeignore allowlists).
  metafile: true,
  outdir: dist,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['vscode'],
  plugins: [chatBundle],
  // Production (npm run package): minified, no source maps (the .vsix ships neither maps nor
  // sources; a stale .map from a development build is not referenced and not packaged).
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
});

fs.writeFileSync(path.join(dist, 'metafile.json'), JSON.stringify(built.metafile));

const copies = [
  ['node_modules/sql.js/dist/sql-wasm.wasm', 'sql-wasm.wasm'],
  ['node_modules/web-tree-sitter/web-tree-sitter.wasm', 'web-tree-sitter.wasm'],
];
for (const [from, to] of copies) fs.copyFileSync(path.join(root, from), path.join(dist, to));

// Grammars: the manifest in grammars/ names the wasm files we declare languages for.
const manifestPath = path.join(root, 'grammars', 'manifest.json');
const grammarsOut = path.join(dist, 'grammars');
// Production starts from an empty dist/grammars so `.vscodeignore`'s `dist/grammars/**` can only
// pick up the grammars the manifest declares, never one left behind by an older build.
if (production) fs.rmSync(grammarsOut, { recursive: true, force: true });
fs.mkdirSync(grammarsOut, { recursive: true });
if (fs.existsSync(manifestPath)) {
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const files = new Set(
    Object.values(manifest.languages ?? manifest)
      .map((entry) => entry.grammar)
      .filter(Boolean),
  );
  for (const file of files)
    fs.copyFileSync(path.join(root, 'node_modules/@vscode/tree-sitter-wasm/wasm', file), path.join(grammarsOut, file));
  for (const file of fs.readdirSync(path.join(root, 'grammars'))) {
    if (file.endsWith('.scm') || file === 'manifest.json') fs.copyFileSync(path.join(root, 'grammars', file), path.join(grammarsOut, file));
  }
}
console.log(
  `esbuild: bundled ${Object.keys(entryPoints).join(', ')} into ${path.relative(root, dist) || '.'}/${production ? ' (production)' : ''}`,
);
