import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic } from 'sql.js';
import { identifyFileCalls, installFileHooks } from './storage/wasmFiles';

let loading: Promise<SqlJsStatic> | undefined;
let wasmDirectory: string | undefined;

/** Where `sql-wasm.wasm` lives; the bundles set this to their own folder. */
export function setSqlWasmDirectory(directory: string): void {
  wasmDirectory = directory;
}

function defaultWasmDirectory(): string {
  // In the bundles the wasm is copied next to the script; in tests it stays in node_modules.
  if (fs.existsSync(path.join(__dirname, 'sql-wasm.wasm'))) return __dirname;
  try {
    return path.dirname(require.resolve('sql.js/dist/sql-wasm.wasm'));
  } catch {
    return __dirname;
  }
}

/** The little of the WebAssembly API used here (the project's `lib` has no DOM types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  Memory: abstract new (...args: never[]) => WasmMemory;
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: object } }>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** sql.js's WebAssembly memory, kept when the module is instantiated (see `declareRowFunction`). */
let memory: WasmMemory | undefined;

/**
 * Loads the SQLite WASM module once per process. It is instantiated here rather than by sql.js
 * so that its memory is at hand: `pk_row` reads its arguments straight from it.
 */
export function loadSqlite(): Promise<SqlJsStatic> {
  if (!loading) {
    const directory = wasmDirectory ?? defaultWasmDirectory();
    let failed: (error: unknown) => void = () => undefined;
    const instantiationFailed = new Promise<never>((_, reject) => (failed = reject));
    const module = initSqlJs({
      locateFile: (file: string) => path.join(directory, file),
      instantiateWasm(imports: object, done: (instance: object) => void) {
        // The file calls are wrapped before instantiation: see storage/wasmFiles.ts.
        installFileHooks(imports);
        fs.promises
          .readFile(path.join(directory, 'sql-wasm.wasm'))
          .then((bytes) => wasm.instantiate(bytes, imports))
          .then(({ instance }) => {
            memory = findMemory(instance.exports) ?? findMemory(imports);
            if (!memory) throw new Error('the module exposes no memory');
            done(instance);
          })
          .catch(failed);
        return {};
      },
    });
    loading = Promise.race([module, instantiationFailed])
      .then((SQL) => {
        identifyFileCalls(SQL, memory as WasmMemory);
        return SQL;
      })
      .catch((error: unknown) => {
        loading = undefined;
        throw new Error(`SQLite (sql.js) could not be loaded from ${directory}: ${error instanceof Error ? error.message : String(error)}`);
      });
  }
  return loading;
}

/** Bytes of sql.js's WebAssembly memory (it grows and never shrinks): 0 before `loadSqlite`. */
export function sqliteHeapBytes(): number {
  return memory?.buffer.byteLength ?? 0;
}

function findMemory(object: object): WasmMemory | undefined {
  for (const value of Object.values(object) as unknown[]) {
    if (value instanceof wasm.Memory) return value;
    if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
      const nested = Object.values(value).find((inner) => inner instanceof wasm.Memory);
      if (nested) return nested;
    }
  }
  return undefined;
}

/** The parts of sql.js's module that `declareRowFunction` uses beyond its typed API. */
interface SqlJsInternals {
  addFunction(callback: (context: number, count: number, values: number) => void, signature: string): number;
  stringToNewUTF8(text: string): number;
  _free(pointer: number): void;
  _sqlite3_create_function_v2(
    db: number,
    name: number,
    argumentCount: number,
    flags: number,
    app: number,
    scalar: number,
    step: number,
    final: number,
    destroy: number,
  ): number;
  _sqlite3_value_blob(value: number): number;
  _sqlite3_value_bytes(value: number): number;
  _sqlite3_value_double(value: number): number;
  _sqlite3_result_double(context: number, value: number): void;
}

/**
 * Called by SQL once per row with a blob and a number, straight over sql.js's memory: `bytes`
 * and `words` view that memory, and the blob is `size` bytes at byte offset `pointer`. Nothing
 * is copied or allocated per row, which is what makes scoring thousands of rows cheap.
 */
export type RowFunction = (bytes: Uint8Array, words: Uint32Array, pointer: number, size: number, value: number) => number;

let active: RowFunction | undefined;
let failure: unknown;
let callbackPointer: number | undefined;
let views: { buffer: ArrayBuffer; bytes: Uint8Array; words: Uint32Array } | undefined;

function heapViews(): { bytes: Uint8Array; words: Uint32Array } {
  const buffer = (memory as WasmMemory).buffer;
  if (!views || views.buffer !== buffer) views = { buffer, bytes: new Uint8Array(buffer), words: new Uint32Array(buffer) };
  return views;
}

/**
 * Declares `pk_row(blob, number)` on `db`: a scalar function that calls whichever `RowFunction`
 * `withRowFunction` has made active (0 when none is). sql.js's own `create_function` copies each
 * blob byte by byte into a new array and makes several calls per argument; this does neither.
 */
export function declareRowFunction(SQL: SqlJsStatic, db: Database): void {
  const internals = SQL as unknown as SqlJsInternals;
  const handle = (db as unknown as { db?: unknown }).db;
  if (!memory || typeof handle !== 'number' || typeof internals.addFunction !== 'function')
    throw new Error('this sql.js build does not expose what pk_row needs');
  callbackPointer ??= internals.addFunction((context, _count, values) => {
    let result = 0;
    try {
      const run = active;
      if (run) {
        const { words: before } = heapViews();
        const blob = before[values >>> 2];
        const number = before[(values >>> 2) + 1];
        const pointer = internals._sqlite3_value_blob(blob);
        const size = internals._sqlite3_value_bytes(blob);
        const value = internals._sqlite3_value_double(number);
        const { bytes, words } = heapViews();
        result = pointer === 0 ? 0 : run(bytes, words, pointer, size, value);
      }
    } catch (error) {
      failure ??= error;
    }
    internals._sqlite3_result_double(context, result);
  }, 'viii');
  const name = internals.stringToNewUTF8('pk_row');
  try {
    const code = internals._sqlite3_create_function_v2(handle, name, 2, sqliteUtf8, 0, callbackPointer, 0, 0, 0);
    if (code !== 0) throw new Error(`SQLite could not declare pk_row (code ${code})`);
  } finally {
    internals._free(name);
  }
}

const sqliteUtf8 = 1;

/** Runs `work` (statements calling `pk_row`) with `row` answering those calls; an error `row` threw is rethrown after. */
export function withRowFunction<T>(row: RowFunction, work: () => T): T {
  const previous = active;
  active = row;
  failure = undefined;
  try {
    const result = work();
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error(`pk_row failed: ${JSON.stringify(failure)}`);
    return result;
  } finally {
    active = previous;
    failure = undefined;
  }
}
