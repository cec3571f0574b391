#!/usr/bin/env node
// Splits the samples of V8 .cpuprofiles of a cold index (`node --cpu-prof dist/bench.js ...`,
// which writes one profile per thread: the engine's and each parse worker's) into indexing
// phases, by the TypeScript source of the frames on each sample's stack (through dist/*.js.map).
// A sample counts for the first phase in the list below that any frame of its stack belongs to,
// so a phase that calls another (the full-text writes call SQLite) keeps the time it causes.
//
//   node --cpu-prof --cpu-prof-dir=/tmp/pk-prof dist/bench.js --files 1000 --index-only --skip-real ...
//   node test/bench/profile-phases.mjs /tmp/pk-prof/*.cpuprofile
//
// Sampled time is wall time of the thread: on a loaded machine every figure is inflated alike,
// so compare shares, or scale by the CPU seconds the bench prints. Read a profile with the build
// that wrote it: the frames are mapped through the source maps now in dist/, and another build's
// put the samples in the wrong functions.
import * as fs from 'node:fs';
import { sourceMapFor } from './sourceMaps.mjs';

const files = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (files.length === 0) {
  console.error('usage: node test/bench/profile-phases.mjs PROFILE.cpuprofile ...');
  process.exit(2);
}

/** [phase, test on (source file, function name)], in the order that decides a sample with several. */
const phases = [
  ['FTS merge (optimize)', (file, name) => file.endsWith('tables/fullTextIndex.ts') && name === 'optimize'],
  ['persistence (save)', (file, name) => file.endsWith('src/core/store.ts') && name === 'persist'],
  ['common-term counts', (file) => file.endsWith('src/core/commonTerms.ts')],
  ['FTS4 inserts/deletes (staged batch)', (file) => file.endsWith('tables/fullTextIndex.ts')],
  ['secretlint', (file) => file.endsWith('exclusion/secretlintLayer.ts') || file.includes('node_modules/@secretlint/')],
  ['own secret rules', (file) => file.endsWith('exclusion/secrets.ts')],
  ['content sniffing (binary, UTF-8)', (file) => file.endsWith('exclusion/contentRules.ts')],
  ['SHA-256 and ids', (file) => file.endsWith('src/core/hashing.ts')],
  ['declaration extraction', (file) => file.endsWith('parsing/declarationExtractor.ts') || file.endsWith('parsing/declarationNaming.ts')],
  ['identifier extraction', (file) => file.endsWith('parsing/identifierIndex.ts')],
  [
    'chunking (splitter, lines, tokens)',
    (file) => /parsing\/(chunkSplitter|parserChain|textWindows|regex\w*)\.ts$|src\/core\/tokens\.ts$/.test(file),
  ],
  ['tree-sitter parse', (file) => file.endsWith('parsing/treeSitterParser.ts') || file.endsWith('parsing/errorRecovery.ts')],
  ['term extraction (fileTerms, termCodes, words)', (file) => /src\/core\/(fileTerms|termCodes|words)\.ts$/.test(file)],
  ['building rows (buildRows)', (file, name) => file.endsWith('src/core/sync.ts') && name === 'buildRows'],
  ['worker transport (messages, clone)', (file) => /worker\/(parsePool|parseJobs|parseWorker)\.ts$/.test(file)],
  [
    'rows: files, chunks, symbols (SQLite)',
    (file) => /tables\/(chunkTable|fileCatalog|database|hexBlob)\.ts$|src\/core\/store\.ts$/.test(file),
  ],
  ['discovery', (file) => /src\/core\/(discovery|gitState)\.ts$|exclusion\/pathRules\.ts$/.test(file)],
  ['reading files', (file) => /src\/core\/(containedRead|liveFile|ports)\.ts$/.test(file)],
  ['sync loop (other)', (file) => file.endsWith('src/core/sync.ts')],
  ['storage (page tracking)', (file) => file.includes('src/core/storage/')],
];

function sourceOf(frame) {
  const { url, lineNumber, columnNumber } = frame;
  if (!url.startsWith('file://')) return url;
  const entry = sourceMapFor(url)?.findEntry(lineNumber, columnNumber);
  return entry?.originalSource ?? new URL(url).pathname;
}

const totals = new Map();
let grand = 0;
for (const file of files) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const phaseOfNode = new Map();
  const phaseOf = (id) => {
    if (phaseOfNode.has(id)) return phaseOfNode.get(id);
    const leaf = byId.get(id).callFrame.functionName;
    let phase;
    if (leaf === '(idle)' || leaf === '(garbage collector)' || leaf === '(program)') phase = leaf;
    else {
      let best = phases.length;
      for (let node = id; node !== undefined; node = parent.get(node)) {
        const frame = byId.get(node).callFrame;
        const source = sourceOf(frame);
        const index = phases.findIndex(([, test]) => test(source, frame.functionName));
        if (index >= 0 && index < best) best = index;
      }
      phase = best < phases.length ? phases[best][0] : '(other: runtime, start-up, bench)';
    }
    phaseOfNode.set(id, phase);
    return phase;
  };
  const own = new Map();
  let sampled = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const phase = phaseOf(profile.samples[i]);
    own.set(phase, (own.get(phase) ?? 0) + dt);
    if (phase !== '(idle)') sampled += dt;
  }
  console.log(`${file}: ${(sampled / 1e6).toFixed(1)} s busy`);
  for (const [phase, us] of [...own].sort((a, b) => b[1] - a[1])) {
    if (phase !== '(idle)') totals.set(phase, (totals.get(phase) ?? 0) + us);
    console.log(`  ${(us / 1e6).toFixed(2).padStart(7)} s  ${phase}`);
  }
  grand += sampled;
}
if (files.length > 1) {
  console.log(`all threads: ${(grand / 1e6).toFixed(1)} s busy`);
  for (const [phase, us] of [...totals].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${(us / 1e6).toFixed(2).padStart(7)} s  ${((100 * us) / grand).toFixed(1).padStart(5)} %  ${phase}`);
  }
}
