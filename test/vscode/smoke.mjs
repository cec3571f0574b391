#!/usr/bin/env node
// Packaged-.vsix smoke test: runs `npm run package` on a clean copy of the source tree, checks the
// .vsix holds exactly what .vscodeignore allows, installs it into a real VS Code (code-server) with
// --install-extension and runs the `smoke` extension-host suite against the INSTALLED extension.
//
// The copy is the working tree as a fresh clone would have it (`git ls-files` tracked + untracked,
// not ignored) with node_modules linked, so packaging never touches the repository's dist/ (which
// concurrent development runs use) and stale local files cannot leak into the package.
//
//   node test/vscode/smoke.mjs        (needs `npm run build:test` first, for out/test/vscode/suite)
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './launcher/toolchain.mjs';
import { runExtensionTests } from './launcher/runSuite.mjs';
import { createFixtureWorkspace } from './fixtureWorkspace.mjs';

const suiteIndex = path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suite', 'index.js');
const outputDir = path.join(REPO_ROOT, 'test-output');

/** Entry names of a zip file, read from its central directory (no unzip binary needed). */
export function zipEntries(file) {
  const buf = readFileSync(file);
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error(`${file} is not a zip file`);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry ${i}`);
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    entries.push({ name: buf.toString('utf8', at + 46, at + 46 + nameLength), size, compressed });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * What the package may and must contain (paths inside the .vsix's `extension/` folder; vsce
 * lower-cases readme/changelog and adds .txt to LICENSE). Returns the problems found.
 */
export function checkVsixContents(names, root = REPO_ROOT) {
  const manifest = JSON.parse(readFileSync(path.join(root, 'grammars', 'manifest.json'), 'utf8'));
  const languages = Object.values(manifest.languages ?? manifest);
  const grammarFiles = new Set(['manifest.json', ...languages.flatMap((l) => [l.grammar, l.query]).filter(Boolean)]);
  const required = [
    'package.json',
    'package.nls.json',
    'readme.md',
    'changelog.md',
    'LICENSE.txt',
    'bin/pk.js',
    'media/icon.png',
    'l10n/bundle.l10n.json',
    'dist/extension.js',
    // The chat handlers, which extension.js loads at the first @project request (chatHandlers.ts).
    'dist/chat.js',
    'dist/worker.js',
    // The parse pool's workers (tree-sitter, no sql.js), started by the engine worker for large syncs.
    'dist/parseWorker.js',
    'dist/cli.js',
    'dist/sql-wasm.wasm',
    'dist/web-tree-sitter.wasm',
    ...[...grammarFiles].map((f) => `dist/grammars/${f}`),
  ];
  const allowed = (name) => required.includes(name) || /^(media|l10n)\//.test(name);
  const files = names.filter((n) => n.startsWith('extension/')).map((n) => n.slice('extension/'.length));
  const outside = names.filter((n) => !n.startsWith('extension/') && n !== 'extension.vsixmanifest' && n !== '[Content_Types].xml');
  return [
    ...required.filter((f) => !files.includes(f)).map((f) => `missing: ${f}`),
    ...files.filter((f) => !allowed(f)).map((f) => `not allowed: ${f}`),
    ...outside.map((f) => `unexpected top-level entry: ${f}`),
  ];
}

function run(command, args, { cwd, log }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) return resolve(out);
      log(out.trimEnd());
      reject(new Error(`${command} ${args.join(' ')} failed (exit ${code}) in ${cwd}`));
    });
  });
}

/**
 * Copies the source tree (tracked and untracked, not ignored) into a fresh folder with the
 * repository's node_modules linked in, and runs `npm run package -- --out <vsix>` there.
 * @returns {Promise<{ vsix: string, bytes: number, entries: {name: string, size: number, compressed: number}[], seconds: number, output: string }>}
 */
export async function packageVsix({ vsix, log = console.log } = {}) {
  const started = Date.now();
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  vsix ??= path.join(outputDir, `${pkg.name}-${pkg.version}.vsix`);
  mkdirSync(path.dirname(vsix), { recursive: true });
  rmSync(vsix, { force: true });
  const stage = mkdtempSync(path.join(os.tmpdir(), 'pkpkg-'));
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .split('\0')
      .filter(Boolean);
    for (const relative of listed) {
      const from = path.join(REPO_ROOT, relative);
      if (!existsSync(from) || !statSync(from).isFile()) continue; // deleted in the working tree
      mkdirSync(path.dirname(path.join(stage, relative)), { recursive: true });
      copyFileSync(from, path.join(stage, relative));
    }
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
    const output = await run('npm', ['run', 'package', '--', '--out', vsix], { cwd: stage, log });
    const entries = zipEntries(vsix);
    return { vsix, bytes: statSync(vsix).size, entries, seconds: (Date.now() - started) / 1000, output };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

const kb = (n) => `${(n / 1024).toFixed(0)} KB`;

/**
 * Packages, checks the contents, installs the .vsix and runs PK_SUITE=smoke in a trusted fixture.
 * The contents check counts as one test next to the suite's own.
 */
export async function runPackagedSmoke({ log = console.log } = {}) {
  const started = Date.now();
  let passed = 0;
  let failed = 0;
  const result = () => ({ passed, failed, vsix, bytes, files, seconds: (Date.now() - started) / 1000 });
  let vsix;
  let bytes = 0;
  let files = 0;

  let packaged;
  try {
    packaged = await packageVsix({ log });
  } catch (error) {
    log(`[smoke] packaging failed: ${error instanceof Error ? error.message : String(error)}`);
    failed++;
    return result();
  }
  vsix = packaged.vsix;
  bytes = packaged.bytes;
  const contents = packaged.entries.filter((e) => !e.name.endsWith('/'));
  files = contents.filter((e) => e.name.startsWith('extension/')).length;
  const unpacked = contents.reduce((sum, e) => sum + e.size, 0);
  log(
    `[smoke] packaged ${vsix}: ${kb(bytes)} (${bytes} bytes), ${files} files, ${kb(unpacked)} unpacked, in ${packaged.seconds.toFixed(1)} s`,
  );
  for (const e of contents) log(`[smoke]   ${String(e.size).padStart(9)}  ${e.name}`);

  const problems = checkVsixContents(contents.map((e) => e.name));
  if (problems.length === 0) {
    passed++;
    log('[smoke] ✔ the .vsix holds exactly the allowlisted files');
  } else {
    failed++;
    log(`[smoke] ✘ the .vsix contents are wrong:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }

  if (!existsSync(path.join(path.dirname(suiteIndex), 'smoke.test.js'))) {
    log(`[smoke] ${suiteIndex.replace('index.js', 'smoke.test.js')} is missing: run \`npm run build:test\` first`);
    failed++;
    return result();
  }
  const folder = createFixtureWorkspace('pkw-smoke-');
  let code = 1;
  let counted = false;
  try {
    code = await runExtensionTests({
      vsix,
      extensionTestsPath: suiteIndex,
      folder,
      trusted: true,
      extensionEnvironment: { PK_SUITE: 'smoke', PK_REPO_ROOT: REPO_ROOT },
      timeoutMs: 240_000,
      screenshotOnFailure: path.join(outputDir, 'failed-smoke.png'),
      log: (line) => {
        const summary = line.match(/^(\d+) passed, (\d+) failed$/);
        if (summary) {
          passed += Number(summary[1]);
          failed += Number(summary[2]);
          counted = true;
        }
        log(line);
      },
    });
  } catch (error) {
    log(`[smoke] run failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  // A run that died before its summary line still counts as a failure.
  if (code !== 0 && (!counted || failed === 0)) failed++;
  return result();
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const r = await runPackagedSmoke();
  console.log(`[smoke] ${r.vsix ?? '(no package)'}: ${r.bytes} bytes, ${r.files} files, ${r.seconds.toFixed(1)} s`);
  console.log(`${r.passed} passed, ${r.failed} failed`);
  process.exitCode = r.failed > 0 ? 1 : 0;
}
