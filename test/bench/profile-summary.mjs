#!/usr/bin/env node
// Summarizes a V8 .cpuprofile (from `node --cpu-prof dist/bench.js ...`): top functions by self
// and by inclusive time, mapped back to the TypeScript sources through dist/*.js.map, and self
// time grouped by source file / runtime category.
//
//   node --cpu-prof --cpu-prof-dir=/tmp/pk-prof dist/bench.js --index-only --skip-real --skip-hybrid
//   node test/bench/profile-summary.mjs /tmp/pk-prof/*.cpuprofile [--top 30] [--focus FUNCTION]
//
// --focus restricts everything to the samples whose stack contains a function of that name
// (e.g. `retrieve` for search, `syncProject` for indexing) and adds a callers-of-self breakdown.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sourceMapFor } from './sourceMaps.mjs';

const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 30;
const focusIndex = args.indexOf('--focus');
const focus = focusIndex >= 0 ? args[focusIndex + 1] : undefined;
const optionValues = new Set([topIndex, focusIndex].filter((index) => index >= 0).map((index) => index + 1));
const files = args.filter((arg, index) => !arg.startsWith('--') && !optionValues.has(index));
if (files.length === 0) {
  console.error('usage: node test/bench/profile-summary.mjs PROFILE.cpuprofile [--top N]');
  process.exit(2);
}

function locate(frame) {
  const { url, lineNumber, columnNumber } = frame;
  if (!url) return { file: '', line: 0 };
  const map = sourceMapFor(url);
  if (map && lineNumber >= 0) {
    const entry = map.findEntry(lineNumber, columnNumber);
    if (entry && entry.originalSource) {
      const source = entry.originalSource.replace(/^.*?\/(src|test|node_modules)\//, '$1/');
      return { file: source, line: entry.originalLine + 1 };
    }
  }
  if (url.startsWith('wasm://')) return { file: url.replace(/^wasm:\/\/wasm\//, 'wasm:').replace(/-[0-9a-f]+$/, ''), line: 0 };
  return { file: url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'node_modules/'), line: lineNumber + 1 };
}

function category(frame, where) {
  const name = frame.functionName;
  if (name === '(garbage collector)') return '(garbage collector)';
  if (name === '(idle)') return '(idle)';
  if (name === '(program)') return '(program)';
  if (frame.url.startsWith('wasm://')) return `wasm ${where.file}`;
  if (!frame.url) return '(native/builtin)';
  if (frame.url.startsWith('node:')) return `node:${frame.url.slice(5).split('/')[0]}`;
  return where.file || frame.url;
}

for (const file of files) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  if (focus) {
    const inFocus = (id) => {
      for (let cursor = id; cursor !== undefined; cursor = parent.get(cursor))
        if (byId.get(cursor).callFrame.functionName === focus) return true;
      return false;
    };
    for (const id of [...self.keys()]) if (!inFocus(id)) self.delete(id);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const keyOf = new Map();
  const info = new Map();
  for (const node of profile.nodes) {
    const where = locate(node.callFrame);
    const key = `${node.callFrame.functionName || '(anonymous)'} ${where.file}${where.line ? `:${where.line}` : ''}`;
    keyOf.set(node.id, key);
    if (!info.has(key)) info.set(key, { self: 0, inclusive: 0, category: category(node.callFrame, where) });
  }
  const categories = new Map();
  for (const [id, time] of self) {
    const entry = info.get(keyOf.get(id));
    entry.self += time;
    categories.set(entry.category, (categories.get(entry.category) ?? 0) + time);
    // Inclusive: each distinct function on the stack once.
    const seen = new Set();
    for (let cursor = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const key = keyOf.get(cursor);
      if (seen.has(key)) continue;
      seen.add(key);
      info.get(key).inclusive += time;
    }
  }
  const ms = (us) => (us / 1000).toFixed(0).padStart(7);
  const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  console.log(`\n${path.basename(file)}: ${(total / 1e6).toFixed(1)} s sampled${focus ? ` under ${focus}()` : ''}`);
  console.log(`\nSelf time by source file / category:`);
  for (const [name, time] of [...categories].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(time)} ms ${pct(time)}  ${name}`);
  console.log(`\nTop ${top} functions by self time:`);
  for (const [key, entry] of [...info].sort((a, b) => b[1].self - a[1].self).slice(0, top))
    console.log(`${ms(entry.self)} ms ${pct(entry.self)}  ${key}`);
  const bySourceCaller = new Map();
  for (const [id, time] of self) {
    let cursor = id;
    while (cursor !== undefined && !/^src\//.test(locate(byId.get(cursor).callFrame).file)) cursor = parent.get(cursor);
    const key = cursor === undefined ? '(no src/ frame)' : keyOf.get(cursor);
    bySourceCaller.set(key, (bySourceCaller.get(key) ?? 0) + time);
  }
  console.log(`\nSelf time attributed to the nearest src/ frame on the stack (where the time is spent from our code's view):`);
  for (const [key, time] of [...bySourceCaller].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${ms(time)} ms ${pct(time)}  ${key}`);
  console.log(`\nTop ${top} functions by inclusive time:`);
  for (const [key, entry] of [...info].sort((a, b) => b[1].inclusive - a[1].inclusive).slice(0, top))
    console.log(`${ms(entry.inclusive)} ms ${pct(entry.inclusive)}  ${key}`);
}
