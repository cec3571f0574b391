import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';
import { ProjectEngine, type OpenEngineOptions } from '../../src/core/engine';
import type { ChunkParser } from '../../src/core/parsing/chunkParser';
import { createStructuralParsers } from '../../src/core/parsing/structuralParsers';
import { nodePorts, type EnginePorts } from '../../src/core/ports';
import type { IndexStore } from '../../src/core/store';
import { Random } from '../bench/random';

const repository = path.resolve(__dirname, '..', '..', '..');

/** The engine's structural parsers (tree-sitter, then regex) over this repository's grammars and tag queries. */
export function structuralParsers(): ChunkParser[] {
  return createStructuralParsers({
    grammarDirectory: path.join(repository, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'),
    queryDirectory: path.join(repository, 'grammars'),
  });
}

/** The last mtime `Fixture.edit` set, so each edit moves strictly forward (even two in the same millisecond). */
let lastEditTime = 0;

/** Runs git in `directory` with a fixed test identity, so commits need no user configuration. */
export function gitIn(directory: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: directory,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.invalid',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.invalid',
    },
  });
}

/** A temporary project folder the test owns; removed by `cleanup`. */
export class Fixture {
  readonly root: string;

  constructor(files: Record<string, string | Uint8Array> = {}) {
    this.root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pk-test-')));
    for (const [relative, content] of Object.entries(files)) this.write(relative, content);
  }

  path(relative: string): string {
    return path.join(this.root, relative);
  }

  write(relative: string, content: string | Uint8Array): void {
    const absolute = this.path(relative);
    fs.mkdirSync(path.dirname(absolute), { recursive: true });
    fs.writeFileSync(absolute, content);
  }

  /**
   * Writes and moves the mtime forward so size+mtime change detection always sees it: each edit
   * gets a later mtime than the one before, 5 s ahead of the clock, in whole seconds so that file
   * systems with coarse timestamps keep the difference.
   */
  edit(relative: string, content: string): void {
    this.write(relative, content);
    lastEditTime = Math.max(Math.ceil((Date.now() + 5_000) / 1000) * 1000, lastEditTime + 1000);
    const future = new Date(lastEditTime);
    fs.utimesSync(this.path(relative), future, future);
  }

  remove(relative: string): void {
    fs.rmSync(this.path(relative), { force: true, recursive: true });
  }

  git(...args: string[]): string {
    return gitIn(this.root, ...args);
  }

  initGit(): void {
    this.git('init', '-q', '-b', 'main');
    this.git('add', '-A');
    this.git('commit', '-q', '-m', 'initial', '--allow-empty');
  }

  cleanup(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/** `fixture(files)` for one test file: each folder it creates is removed after that file's tests. */
export function fixtureFactory(): (files?: Record<string, string | Uint8Array>) => Fixture {
  const created: Fixture[] = [];
  after(() => created.forEach((fixture) => fixture.cleanup()));
  return (files = {}) => {
    const fixture = new Fixture(files);
    created.push(fixture);
    return fixture;
  };
}

/** A maker of empty temporary folders named `prefix…`, each removed after the calling file's tests. */
export function tempFolderFactory(prefix: string): () => string {
  const made: string[] = [];
  after(() => made.forEach((folder) => fs.rmSync(folder, { recursive: true, force: true })));
  return () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    made.push(folder);
    return folder;
  };
}

export function tempFile(name: string): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'pk-db-'));
  return path.join(directory, name);
}

export async function openEngine(root: string, extra: Partial<OpenEngineOptions> = {}): Promise<ProjectEngine> {
  return ProjectEngine.open({ root, ports: extra.ports ?? nodePorts(), ...extra });
}

/** Ports that record warnings, for asserting that a reason was logged. */
export function recordingPorts(): { ports: EnginePorts; warnings: string[] } {
  const warnings: string[] = [];
  const base = nodePorts();
  return {
    ports: { ...base, log: { info() {}, warn: (message) => warnings.push(message), error: (message) => warnings.push(message) } },
    warnings,
  };
}

/** Lines of a generated source file, numbered so each is unique. */
export function numberedLines(count: number, prefix = 'line'): string {
  return Array.from({ length: count }, (_, index) => `const ${prefix}${index + 1} = ${index + 1};`).join('\n') + '\n';
}

/**
 * Seeded, so a failing run can be repeated exactly: `PK_TEST_SEED=<n>` picks another sequence
 * (the default is the same on every run).
 */
const seed = Number.parseInt(process.env.PK_TEST_SEED ?? '', 10);
const random = new Random(Number.isSafeInteger(seed) ? seed : 20261201);

/** Random characters from an alphabet, for secrets generated at test time (never committed). */
export function randomFrom(alphabet: string, length: number): string {
  let out = '';
  for (let index = 0; index < length; index++) out += alphabet[Math.floor(random.next() * alphabet.length)];
  return out;
}

/** Every table's rows, sorted (blobs as hex): two indexes with the same rows give the same lists. */
export function allRows(store: IndexStore): Record<string, string[]> {
  const database = store.database;
  const tables = database.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")[0].values.map((row) => String(row[0]));
  const rows: Record<string, string[]> = {};
  for (const table of tables) {
    const result = database.exec(`SELECT * FROM "${table}"`)[0];
    rows[table] = (result?.values ?? [])
      .map((row) => JSON.stringify(row.map((cell) => (cell instanceof Uint8Array ? Buffer.from(cell).toString('hex') : cell))))
      .sort();
  }
  return rows;
}
