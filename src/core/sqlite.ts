import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';

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

/** Loads the SQLite WASM module once per process. */
export function loadSqlite(): Promise<SqlJsStatic> {
  if (!loading) {
    const directory = wasmDirectory ?? defaultWasmDirectory();
    loading = initSqlJs({ locateFile: (file: string) => path.join(directory, file) }).catch((error: unknown) => {
      loading = undefined;
      throw new Error(`SQLite (sql.js) could not be loaded from ${directory}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  return loading;
}
