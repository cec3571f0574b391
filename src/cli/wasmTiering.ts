import * as v8 from 'node:v8';
import { namesNodeFlag } from './nodeFlags';

/**
 * The flags that keep V8 on its baseline WebAssembly code (Liftoff) for SQLite (sql.js) and
 * tree-sitter. By default V8 also optimizes the functions that run hot ("dynamic tiering"), and
 * those optimizing compiles cost a short command more than they save: `pk search` on an existing
 * index of Hono took 0.41–0.45 s with tiering and 0.26–0.30 s without (four runs each,
 * alternating), `pk index` with nothing to do 0.39–0.54 s against 0.27–0.37 s. A long run needs
 * the optimized code: a cold index of the 5,000-file bench took 26.0 s with tiering and 32.8 s
 * without, and a checkout sync of 203 twisted files (3.6–4.1 s) was no faster without it.
 */
export const baselineWasmFlags = ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up'] as const;

/** A flag of Node's command line or `NODE_OPTIONS` that already decides how WebAssembly is compiled. */
const wasmTieringFlag = /^--(?:no-)?(?:wasm[-_](?:dynamic[-_]tiering|tier[-_]up|lazy[-_]compilation)|liftoff)\b/;

/** The commands that may run for long (a first or full index, a server): they keep V8's tiering. */
const longRunningCommands = new Set(['index', 'mcp']);

/**
 * Whether `command` is a short run, one that the baseline code serves faster: any command but
 * `index` and `mcp`, on a database file with data in it. A missing or empty file means the command
 * builds the index first. A file that turns out corrupt or foreign is rebuilt too, on baseline
 * code, which is slower but still correct.
 */
export function quickCommand(command: string | undefined, databaseHoldsData: boolean): boolean {
  return command !== undefined && !longRunningCommands.has(command) && databaseHoldsData;
}

/**
 * Keeps this process on baseline WebAssembly code (see `baselineWasmFlags`), unless the command
 * line or `NODE_OPTIONS` already names a tiering flag. V8 decides how to compile a module when it
 * compiles it, so this must run before sql.js is loaded; it returns whether it set the flags.
 */
export function useBaselineWasm(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (namesNodeFlag(wasmTieringFlag, execArgv, nodeOptions)) return false;
  for (const flag of baselineWasmFlags) v8.setFlagsFromString(flag);
  return true;
}
