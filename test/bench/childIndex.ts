/**
 * The cold index, an unchanged sync, a one-file edit and a reopen, each run by a child process of
 * its own (`node dist/bench.js --index-child ...`), so that peak RSS is that of indexing alone,
 * not of the bench's corpus generation, earlier sections or search runs; and the bytes each save
 * writes, counted through the `databaseFiles` port. These are the issue's goal rows for memory
 * and persistence (issue 15).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { arenaEnvironment } from '../../src/cli/mallocArenas';
import { youngGenerationFlags } from '../../src/cli/youngGeneration';
import { ProjectEngine } from '../../src/core/engine';
import type { MergeFigures } from '../../src/core/sync';
import type { ChunkParser } from '../../src/core/parsing/chunkParser';
import { nodePorts } from '../../src/core/ports';
import { sqliteHeapBytes } from '../../src/core/sqlite';
import { openFileBytes, residentBlockBytes } from '../../src/core/storage/wasmFiles';
import { bytesWritten, countingDatabaseFileIo, emptyWriteCounts, nodeDatabaseFileIo } from '../../src/core/storage/fileIo';
import { mb, round } from './stats';

type Bounds = { maxFiles: number; maxTotalBytes: number; maxDirectories: number };

interface MemorySample {
  rssMB: number;
  heapUsedMB: number;
  externalMB: number;
  arrayBuffersMB: number;
  /** sql.js's WebAssembly memory (page cache, memory journal, statements): part of `external`. */
  sqliteHeapMB: number;
  /** Files sql.js keeps in its in-memory file system (the rollback journal; the database file only where it is not paged): array buffers. */
  memfsMB: number;
  /** Database blocks written since the last save and held in memory (the rest are read from disk or spilled): array buffers. */
  writtenBlocksMB: number;
  /** Of RSS, anonymous memory (heaps, buffers, WebAssembly memories of every thread) and mapped files (code). */
  rssAnonMB: number;
  rssFileMB: number;
}

/** `RssAnon` and `RssFile` of /proc/self/status in MB (0 where there is no /proc). */
function residentSplit(): { anon: number; file: number } {
  try {
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024;
    return { anon: field('RssAnon'), file: field('RssFile') };
  } catch {
    return { anon: 0, file: 0 };
  }
}

function sample(): MemorySample {
  const usage = process.memoryUsage();
  const resident = residentSplit();
  return {
    rssMB: round(mb(usage.rss), 1),
    heapUsedMB: round(mb(usage.heapUsed), 1),
    externalMB: round(mb(usage.external), 1),
    arrayBuffersMB: round(mb(usage.arrayBuffers), 1),
    sqliteHeapMB: round(mb(sqliteHeapBytes()), 1),
    memfsMB: round(mb(openFileBytes()), 1),
    writtenBlocksMB: round(mb(residentBlockBytes()), 1),
    rssAnonMB: round(resident.anon, 1),
    rssFileMB: round(resident.file, 1),
  };
}

interface SaveFigures {
  ms: number;
  bytesWritten: number;
  mode: string | null;
  /** Of `ms`, the time the save's writes took. */
  saveMs: number | null;
  reindexed: number;
}

export interface ChildIndexFigures {
  files: number;
  indexSeconds: number;
  /** `process.resourceUsage().maxRSS` of the child right after its cold index. */
  indexPeakRssMB: number;
  /** The memory split at the highest RSS sampled (every 100 ms) during the cold index. */
  atPeak: MemorySample;
  /** The cold index's full-text merge: steps, total and longest step (ms); null when it ran none. */
  fullTextMerge: MergeFigures | null;
  /** With `PK_BENCH_PHASES=1`: the highest RSS per phase, sampled by a thread of its own. */
  phasePeaks?: Record<string, number>;
  dbBytes: number;
  coldSaveBytes: number;
  noChange: SaveFigures;
  oneFileEdit: SaveFigures;
  restore: SaveFigures;
  /** The same edit and restore synced the way the editor syncs a save: `syncChanges` with the saved path, persisted. */
  editorEdit: SaveFigures;
  editorRestore: SaveFigures;
  reopenMs: number;
  /** Peak RSS of a child that only opens the index and runs one search. */
  reopenPeakRssMB: number;
}

/**
 * The whole process's RSS per phase of the cold index, sampled every 20 ms by a thread of its
 * own: the main thread spends seconds at a time inside SQLite (a commit, the full-text merge),
 * where its own timer cannot sample. Opt-in (`PK_BENCH_PHASES=1`): the sampler's thread adds a
 * few MB to the peak it measures.
 */
function phaseSampler(): { mark(phase: string): void; finish(): Promise<Record<string, number>> } {
  const code = `
    const { parentPort } = require('node:worker_threads');
    const fs = require('node:fs');
    let phase = 'open';
    const max = {};
    const rss = () => Number(/^VmRSS:\\s+(\\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
    const note = () => { const value = rss(); if (!(max[phase] >= value)) max[phase] = Math.round(value * 10) / 10; };
    const timer = setInterval(note, 20);
    parentPort.on('message', (message) => {
      note();
      if (message !== null) phase = message;
      else { clearInterval(timer); parentPort.postMessage(max); parentPort.close(); }
    });`;
  const worker = new Worker(code, { eval: true });
  let last = '';
  return {
    mark(phase) {
      if (phase !== last) worker.postMessage(phase);
      last = phase;
    },
    finish: () =>
      new Promise((resolve) => {
        worker.once('message', (max: Record<string, number>) => resolve(max));
        worker.postMessage(null);
      }),
  };
}

/** The child's side: `mode` is `index` (cold index, unchanged sync, edit, restore) or `reopen`. */
export async function runIndexChild(argv: string[], makeParsers: () => Promise<ChunkParser[]>): Promise<number> {
  const [mode, root, dbPath, boundsJson, editPath] = argv;
  const counts = emptyWriteCounts();
  const ports = { ...nodePorts(), databaseFiles: countingDatabaseFileIo(nodeDatabaseFileIo, counts) };
  const bounds = JSON.parse(boundsJson) as Bounds;
  const parsers = await makeParsers();
  if (mode === 'reopen') {
    const started = performance.now();
    const engine = await ProjectEngine.open({ root, dbPath, ports, parsers, options: { bounds, useGit: true } });
    const reopenMs = round(performance.now() - started, 1);
    await engine.search('handler request');
    await engine.close();
    console.log(JSON.stringify({ reopenMs, reopenPeakRssMB: round(process.resourceUsage().maxRSS / 1024, 1) }));
    return 0;
  }
  let peak = sample();
  const timer = setInterval(() => {
    const now = sample();
    if (now.rssMB > peak.rssMB) peak = now;
  }, 100);
  const started = performance.now();
  // `PK_PARSE_WORKERS` as `pk` reads it, so the workers' share of RSS can be measured (0: none).
  const workers = process.env.PK_PARSE_WORKERS;
  const parsePool = workers === undefined || workers === '' ? undefined : Number(workers) === 0 ? false : { size: Number(workers) };
  const engine = await ProjectEngine.open({ root, dbPath, ports, parsers, options: { bounds, useGit: true }, parsePool });
  const phases = process.env.PK_BENCH_PHASES === '1' ? phaseSampler() : undefined;
  const report = await engine.sync({
    onProgress: (progress) => {
      if (progress.phase !== 'indexing') phases?.mark(progress.phase);
      else if (progress.done === progress.total) phases?.mark('after the last file (stale rows, full-text merge, common terms)');
      else phases?.mark(`indexing ${Math.floor((progress.done * 10) / Math.max(1, progress.total))}0%`);
    },
  });
  const phasePeaks = await phases?.finish();
  const indexSeconds = round((performance.now() - started) / 1000, 2);
  clearInterval(timer);
  const indexPeakRssMB = round(process.resourceUsage().maxRSS / 1024, 1);
  const coldSaveBytes = bytesWritten(counts);
  // One sync timed with the bytes its save wrote; `path` names the sync the engine chose, where it chooses.
  const timed = async (sync: () => Promise<{ reindexed: number; path?: string }>): Promise<SaveFigures> => {
    Object.assign(counts, emptyWriteCounts());
    const before = engine.store.lastSave;
    const at = performance.now();
    const outcome = await sync();
    const ms = round(performance.now() - at, 1);
    const save = engine.store.lastSave;
    const saved = save && save !== before ? save : undefined;
    const mode = outcome.path === undefined ? (saved?.mode ?? null) : `${outcome.path} sync${saved ? `, ${saved.mode}` : ''}`;
    return { ms, bytesWritten: bytesWritten(counts), mode, saveMs: saved ? round(saved.ms, 1) : null, reindexed: outcome.reindexed };
  };
  const measure = () => timed(() => engine.sync());
  // The editor's path: a save names its file, so only that file is re-indexed and the database written.
  const measureEditor = () =>
    timed(async () => {
      const outcome = await engine.syncChanges({ paths: [editPath], persist: true });
      return { reindexed: outcome.changed, path: outcome.path };
    });
  const noChange = await measure();
  const absolute = path.join(root, ...editPath.split('/'));
  const original = fs.readFileSync(absolute);
  const stat = fs.statSync(absolute);
  const edited = async (sync: () => Promise<SaveFigures>, mark: string): Promise<{ edit: SaveFigures; restore: SaveFigures }> => {
    let edit: SaveFigures;
    try {
      fs.writeFileSync(absolute, Buffer.concat([original, Buffer.from(`\n// bench edit ${mark} ${Date.now()}\n`)]));
      const future = new Date(Date.now() + 5_000);
      fs.utimesSync(absolute, future, future);
      edit = await sync();
    } finally {
      fs.writeFileSync(absolute, original);
      fs.utimesSync(absolute, stat.atime, stat.mtime);
    }
    return { edit, restore: await sync() };
  };
  const { edit: oneFileEdit, restore } = await edited(measure, 'discovery');
  const { edit: editorEdit, restore: editorRestore } = await edited(measureEditor, 'editor');
  await engine.close();
  console.log(
    JSON.stringify({
      files: report.reindexed,
      fullTextMerge: report.fullTextMerge ?? null,
      indexSeconds,
      indexPeakRssMB,
      atPeak: peak,
      phasePeaks,
      dbBytes: fs.statSync(dbPath).size,
      coldSaveBytes,
      noChange,
      oneFileEdit,
      restore,
      editorEdit,
      editorRestore,
    }),
  );
  return 0;
}

function runChild(script: string, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    // The child indexes in the process `pk index` gives itself (one malloc arena on Linux, the engine thread's young generation).
    const env = arenaEnvironment() ?? process.env;
    const child = spawn(process.execPath, [...youngGenerationFlags(), script, '--index-child', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env,
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`the index child exited with ${String(code)}: ${last}`));
      try {
        resolve(JSON.parse(last) as Record<string, unknown>);
      } catch {
        reject(new Error(`the index child printed no figures: ${last}`));
      }
    });
  });
}

/** The parent's side: runs both children on `root` (edited file `editPath`) and prints the goal rows. */
export async function childIndexBench(
  label: string,
  script: string,
  root: string,
  bounds: Bounds,
  editPath: string,
  log: (line?: string) => void,
): Promise<ChildIndexFigures | undefined> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'pk-bench-child-'));
  const dbPath = path.join(directory, 'index.sqlite');
  try {
    const indexed = await runChild(script, ['index', root, dbPath, JSON.stringify(bounds), editPath]);
    const reopened = await runChild(script, ['reopen', root, dbPath, JSON.stringify(bounds), editPath]);
    const figures = { ...indexed, ...reopened } as unknown as ChildIndexFigures;
    const save = (name: string, value: SaveFigures) =>
      `${name} ${value.ms} ms, ${(value.bytesWritten / 1e6).toFixed(2)} MB written${value.mode ? ` (${value.mode}, the save ${value.saveMs} ms)` : ''}`;
    const peak = figures.atPeak;
    log(`[${label}] child processes (cold index, then reopen), database writes counted through the databaseFiles port`);
    log(
      `  cold index ${figures.indexSeconds} s, ${figures.files} files, database ${(figures.dbBytes / 1e6).toFixed(1)} MB (saved ${(figures.coldSaveBytes / 1e6).toFixed(1)} MB)`,
    );
    log(
      `  peak RSS ${figures.indexPeakRssMB} MB; at the highest sample: RSS ${peak.rssMB} MB = JS heap ${peak.heapUsedMB} MB + external ${peak.externalMB} MB (array buffers ${peak.arrayBuffersMB} MB, of them sql.js's in-memory files ${peak.memfsMB} MB and written database blocks ${peak.writtenBlocksMB} MB; sql.js's WebAssembly memory ${peak.sqliteHeapMB} MB) + code and the rest (anonymous ${peak.rssAnonMB} MB, mapped files ${peak.rssFileMB} MB, every thread)`,
    );
    if (figures.phasePeaks)
      log(
        `  RSS per phase: ${Object.entries(figures.phasePeaks)
          .map(([phase, value]) => `${phase} ${value} MB`)
          .join('; ')}`,
      );
    log(
      `  sync: ${save('no change', figures.noChange)}; ${save('one-file edit', figures.oneFileEdit)}; ${save('restore', figures.restore)}`,
    );
    log(
      `  the editor's sync of a save (the saved path only): ${save('one-file edit', figures.editorEdit)}; ${save('restore', figures.editorRestore)}`,
    );
    const merge = figures.fullTextMerge;
    if (merge)
      log(
        `  full-text merge after the last file: ${merge.steps} steps and ${merge.releaseSteps} more giving back freed pages, ${round(merge.ms, 0)} ms, the longest step ${round(merge.longestStepMs, 1)} ms (the engine's thread is free between steps)`,
      );
    log(`  reopen ${figures.reopenMs} ms (peak RSS of that process ${figures.reopenPeakRssMB} MB)`);
    log(`  goal rows (issue 15):`);
    log(
      `    | peak RSS while indexing (child process) | ${figures.indexPeakRssMB} MB | goal ≤ 300 MB at 5,000 files, ≤ 1.5 GB at 50,000 |`,
    );
    log(
      `    | one-file edit, the editor's sync of the save: bytes written / sync time | ${(figures.editorEdit.bytesWritten / 1e6).toFixed(2)} MB / ${figures.editorEdit.ms} ms | goal ≤ 64 MB / ≤ 500 ms at 50,000 files |`,
    );
    log(
      `    | one-file edit, a discovery sync (\`pk index\`): bytes written / sync time | ${(figures.oneFileEdit.bytesWritten / 1e6).toFixed(2)} MB / ${figures.oneFileEdit.ms} ms | |`,
    );
    log(
      `    | sync with no change: bytes written / time | ${(figures.noChange.bytesWritten / 1e6).toFixed(2)} MB / ${figures.noChange.ms} ms | |`,
    );
    return figures;
  } catch (error) {
    log(`[${label}] child index failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
