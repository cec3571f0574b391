import assert from 'node:assert/strict';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { OpenEngineOptions, ProjectEngine } from '../../src/core/engine';
import { nodePorts, type EnginePorts } from '../../src/core/ports';
import { structuralLanguages } from '../../src/core/parsing/treeSitterParser';
import type { ParsePool } from '../../src/core/worker/parsePool';
import { allRows, fixtureFactory, numberedLines, openEngine, randomFrom, structuralParsers } from './fixtures';

const fixture = fixtureFactory();
const faultyWorker = path.resolve(__dirname, '..', 'support', 'faultyParseWorker.js');

/** One file per language the grammars declare, plus text, a malformed file and files that are left out. */
function everyLanguage(): Record<string, string | Uint8Array> {
  const awsKey = `AKIA${randomFrom('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
  return {
    'src/a.ts': `import { b } from './b';\nexport class Alpha {\n  run(x: number): number {\n    return b(x) + 1;\n  }\n}\n`,
    'src/b.ts': `export function b(value: number): number {\n  return value * 2;\n}\n${numberedLines(150, 'big')}`,
    'src/view.tsx': `export function View(props: { name: string }) {\n  return <div>{props.name}</div>;\n}\n`,
    'src/c.js': `class Gamma {\n  constructor() { this.v = 1; }\n  get value() { return this.v; }\n}\nmodule.exports = { Gamma };\n`,
    'py/d.py': `import os\n\nclass Delta:\n    def method(self, path):\n        return os.path.join(path, "x")\n\ndef helper():\n    return Delta()\n`,
    'py/broken.py': `def ok():\n    return 1\n\nclass Broken(:\n    def (self\n        pass\n}}}\n`,
    'go/e.go': `package e\n\nimport "fmt"\n\ntype Echo struct{ N int }\n\nfunc (e Echo) Say() { fmt.Println(e.N) }\n`,
    'rust/f.rs': `pub struct Foxtrot { n: u32 }\n\nimpl Foxtrot {\n    pub fn new() -> Self { Foxtrot { n: 1 } }\n}\n\npub trait Speak { fn speak(&self); }\n`,
    'java/G.java': `package g;\n\npublic class Golf {\n  public int value() { return 1; }\n}\n`,
    'cs/H.cs': `namespace H {\n  public class Hotel {\n    public int Value() { return 1; }\n  }\n}\n`,
    'cpp/i.cpp': `#include <string>\nnamespace india {\nclass India {\n public:\n  int value() const { return 1; }\n};\n}\n`,
    'c/j.c': `#include <stdio.h>\n\nstruct juliet { int n; };\n\nint juliet_value(struct juliet *j) { return j->n; }\n`,
    'php/k.php': `<?php\nclass Kilo {\n  public function value() { return 1; }\n}\nfunction kilo_helper() { return new Kilo(); }\n`,
    'ruby/l.rb': `module Lima\n  class Line\n    def value\n      1\n    end\n  end\nend\n`,
    'sh/m.sh': `#!/bin/sh\nmike() {\n  echo "mike $1"\n}\nmike hello\n`,
    'docs/n.md': `# November\n\nSome prose about the project.\n`,
    'data/o.json': `{ "oscar": [1, 2, 3] }\n`,
    'src/minified.js': `${'var a=1;'.repeat(4000)}\n`,
    'src/empty.ts': '',
    'bin/p.bin': Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 0, 0]),
    'src/latin1.py': Buffer.from('# caf\xe9 \xe9t\xe9 d\xe9j\xe0 \xe0 \xe9\xe9\xe9\xe9\n'.repeat(40), 'latin1'),
    'src/config.ts': `export const awsAccessKeyId = '${awsKey}';\n`,
  };
}

/** Node ports with a fixed clock (timestamps are part of the rows) that record what was logged. */
function fixedPorts(): { ports: EnginePorts; logged: string[] } {
  const logged: string[] = [];
  const base = nodePorts();
  const log = { info: () => undefined, warn: (line: string) => logged.push(line), error: (line: string) => logged.push(line) };
  return { ports: { ...base, log, clock: { now: () => 1_780_000_000_000 } }, logged };
}

const engines: ProjectEngine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
});

async function indexWith(root: string, parsePool: OpenEngineOptions['parsePool']) {
  const { ports, logged } = fixedPorts();
  const engine = await openEngine(root, { ports, parsers: structuralParsers(), parsePool });
  engines.push(engine);
  const report = await engine.sync();
  return { engine, report, logged };
}

describe('parse pool', () => {
  test('rows are identical whether files are parsed in worker threads or on the engine thread', async () => {
    const project = fixture(everyLanguage());
    project.initGit();
    const inline = await indexWith(project.root, false);
    const pooled = await indexWith(project.root, { minFiles: 1, size: 2, reclaim: false });
    assert.equal(inline.engine.analyzer, undefined);
    // The first file is analyzed on the engine thread at once; every later one went through the workers.
    assert.equal(pooled.engine.analyzer?.analyzed, pooled.report.discovered - 1);
    assert.deepEqual(pooled.report.errors, []);
    assert.deepEqual(pooled.report.exclusionsByReason, inline.report.exclusionsByReason);
    assert.ok((inline.report.exclusionsByReason['secret-content'] ?? 0) >= 1, 'the generated key is left out');
    const languages = new Set([...pooled.engine.store.catalog.files().values()].map((file) => file.language));
    for (const language of structuralLanguages) {
      assert.ok(languages.has(language), `${language} is indexed`);
    }
    assert.deepEqual(allRows(pooled.engine.store), allRows(inline.engine.store));

    // An incremental sync after edits, through the warm pool, still matches the inline path.
    project.edit('src/a.ts', `export class Alpha {\n  walk(): void {}\n}\n`);
    project.edit('py/d.py', `def only():\n    return 2\n`);
    project.remove('go/e.go');
    const before = pooled.engine.analyzer?.analyzed ?? 0;
    await pooled.engine.sync();
    await inline.engine.sync();
    assert.ok((pooled.engine.analyzer?.analyzed ?? 0) > before, 'the edited files went through the pool');
    assert.deepEqual(allRows(pooled.engine.store), allRows(inline.engine.store));
  });

  test('while no worker is ready the engine thread takes back every file, and the sync does not wait', async () => {
    const project = fixture(everyLanguage());
    const inline = await indexWith(project.root, false);
    process.env.PK_TEST_PARSE_FAULT = 'never-ready:';
    let pooled: Awaited<ReturnType<typeof indexWith>>;
    try {
      pooled = await indexWith(project.root, { minFiles: 1, size: 2, script: faultyWorker });
    } finally {
      delete process.env.PK_TEST_PARSE_FAULT;
    }
    const pool = pooled.engine.analyzer as ParsePool;
    assert.equal(pool.analyzed, 0);
    assert.equal(pool.reclaimed, pooled.report.discovered - 1);
    assert.deepEqual(allRows(pooled.engine.store), allRows(inline.engine.store));
  });

  test('a worker slower to start than the job time limit is waited for, not taken for a lost one', async () => {
    const project = fixture(everyLanguage());
    const inline = await indexWith(project.root, false);
    process.env.PK_TEST_PARSE_FAULT = 'slow-ready:3000';
    let pooled: Awaited<ReturnType<typeof indexWith>>;
    try {
      pooled = await indexWith(project.root, { minFiles: 1, size: 2, script: faultyWorker, reclaim: false, jobTimeoutMs: 2000 });
    } finally {
      delete process.env.PK_TEST_PARSE_FAULT;
    }
    assert.deepEqual(
      pooled.logged.filter((line) => line.includes('did not start')),
      [],
    );
    assert.equal(pooled.engine.analyzer?.analyzed, pooled.report.discovered - 1, 'every file but the first went through the workers');
    assert.deepEqual(allRows(pooled.engine.store), allRows(inline.engine.store));
  });

  test('a worker whose tree-sitter memory passed the bound is replaced after its files, and the rows stay those of the inline path', async () => {
    const project = fixture(everyLanguage());
    project.initGit();
    const inline = await indexWith(project.root, false);
    const usual = await indexWith(project.root, { minFiles: 1, size: 2, reclaim: false });
    // A bound of one byte: a worker retires after the first file it parsed with tree-sitter.
    const pooled = await indexWith(project.root, { minFiles: 1, size: 2, reclaim: false, recycleHeapBytes: 1 });
    const pool = pooled.engine.analyzer as ParsePool;
    assert.equal((usual.engine.analyzer as ParsePool).recycled, 0, 'the default bound is far above what these files need');
    assert.ok(pool.recycled >= 3, `workers were replaced (${pool.recycled})`);
    assert.equal(pool.analyzed, pooled.report.discovered - 1, 'every file but the first still went through the workers');
    assert.deepEqual(pooled.logged, [], 'a replaced worker is not reported as lost');
    assert.deepEqual(pooled.report.errors, []);
    assert.deepEqual(allRows(pooled.engine.store), allRows(inline.engine.store));
  });

  test('a large sync stops its workers after its last file, a smaller one keeps them, and the rows stay those of the inline path', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 210; index++) {
      files[`src/m${index}.ts`] = `export class Model${index} {\n  value(): number {\n    return ${index};\n  }\n}\n`;
    }
    const project = fixture(files);
    project.initGit();
    const inline = await indexWith(project.root, false);
    const pooled = await indexWith(project.root, { minFiles: 1, size: 2, reclaim: false });
    const pool = pooled.engine.analyzer as ParsePool;
    assert.equal(pool.analyzed, pooled.report.discovered - 1, 'every file but the first went through the workers');
    assert.equal(pool.running, 0, 'the workers stopped before the merge and the save, not 30 s later');
    assert.deepEqual(allRows(pooled.engine.store), allRows(inline.engine.store));

    const before = pool.analyzed;
    project.edit('src/m1.ts', `export class Renamed {\n  other(): string {\n    return 'x';\n  }\n}\n`);
    project.edit('src/m2.ts', `export function two(): number {\n  return 2;\n}\n`);
    await pooled.engine.sync();
    await inline.engine.sync();
    assert.ok(pool.analyzed > before, 'the next sync started workers again');
    assert.ok(pool.running > 0, 'a sync of a few files leaves its workers to the idle timer');
    assert.deepEqual(allRows(pooled.engine.store), allRows(inline.engine.store));
  });

  test('a large sync parses the files of rare grammars on the engine thread after its workers stop, with the rows of the inline path', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 300; index++) {
      files[`app/m${index}.ts`] = `export class Model${index} {\n  value(): number {\n    return ${index};\n  }\n}\n`;
    }
    // Six files of two grammars (C shares C++'s), under 2 % of the files each: no worker loads either.
    const rare = {
      'lib/a.cpp': `namespace alpha {\nclass Alpha {\n public:\n  int value() const { return 1; }\n};\n}\n`,
      'lib/b.hpp': `struct Bravo { int n; };\n`,
      'lib/c.cpp': `int charlie(int x) { return x * 2; }\n`,
      'lib/d.c': `struct delta { int n; };\n\nint delta_value(struct delta *d) { return d->n; }\n`,
      'lib/E.cs': `namespace E {\n  public class Echo {\n    public int Value() { return 1; }\n  }\n}\n`,
      'lib/F.cs': `public class Foxtrot { public string Name() { return "f"; } }\n`,
    };
    const project = fixture({ ...files, ...rare });
    project.initGit();
    const inline = await indexWith(project.root, false);
    const pooled = await indexWith(project.root, { minFiles: 1, size: 2, reclaim: false });
    const pool = pooled.engine.analyzer as ParsePool;
    assert.equal(pooled.report.discovered, 306);
    assert.equal(pool.analyzed, 300 - 1, 'every TypeScript file but the first went through the workers, no rare one did');
    assert.equal(pool.running, 0);
    assert.deepEqual(pooled.report.errors, []);
    const rows = pooled.engine.store.catalog.files();
    for (const rarePath of Object.keys(rare)) assert.equal(rows.get(rarePath)?.parser, 'tree-sitter', `${rarePath} has its declarations`);
    assert.deepEqual(allRows(pooled.engine.store), allRows(inline.engine.store));

    // Progress counts the deferred files when they are written: it rises to the total at the last one.
    const indexing: number[] = [];
    await pooled.engine.sync({
      full: true,
      onProgress: (progress) => {
        if (progress.phase === 'indexing') indexing.push(progress.done);
      },
    });
    assert.deepEqual(
      indexing,
      [...indexing].sort((a, b) => a - b),
    );
    assert.equal(indexing.at(-1), 306);
    assert.ok(indexing.includes(300), `the last of the main pass leaves the six deferred files to count (${indexing.join(', ')})`);

    // When a bound can cut the files, they are written in candidate order and every one goes to the workers.
    const bounded = await openEngine(project.root, {
      ports: fixedPorts().ports,
      parsers: structuralParsers(),
      parsePool: { minFiles: 1, size: 2, reclaim: false },
      options: { bounds: { maxFiles: 303 } },
    });
    engines.push(bounded);
    const report = await bounded.sync();
    assert.equal(report.reindexed, 303);
    assert.equal((bounded.analyzer as ParsePool).analyzed, 303 - 1);
    // The first three in git's order of paths, by bytes: upper case first.
    assert.deepEqual([...bounded.store.catalog.files().keys()].filter((key) => key.startsWith('lib/')).sort(), [
      'lib/E.cs',
      'lib/F.cs',
      'lib/a.cpp',
    ]);
  });

  test('a sync with a handful of files to read stays on the engine thread', async () => {
    const project = fixture({ 'a.ts': 'export function a() {}\n', 'b.py': 'def b():\n    pass\n' });
    const { engine } = await indexWith(project.root, {});
    assert.equal(engine.analyzer?.analyzed, 0);
    assert.equal(engine.store.catalog.files().size, 2);
  });

  const faults = { exit: 'crashes', hang: 'stops answering', throw: 'fails', heap: 'runs out of its heap bound' } as const;
  for (const how of ['exit', 'hang', 'throw', 'heap'] as const) {
    test(`a worker that ${faults[how]} on a file leaves that file to the engine thread`, async () => {
      const project = fixture(everyLanguage());
      project.initGit();
      const inline = await indexWith(project.root, false);
      process.env.PK_TEST_PARSE_FAULT = `${how}:py/d.py`;
      let pooled: Awaited<ReturnType<typeof indexWith>>;
      try {
        pooled = await indexWith(project.root, {
          minFiles: 1,
          size: 2,
          script: faultyWorker,
          jobTimeoutMs: how === 'hang' ? 1500 : undefined,
          maxOldGenerationMb: how === 'heap' ? 32 : undefined,
        });
      } finally {
        delete process.env.PK_TEST_PARSE_FAULT;
      }
      const messages = pooled.logged.filter((line) => line.includes('py/d.py'));
      assert.equal(messages.length, 1, `one line names the file: ${JSON.stringify(pooled.logged)}`);
      assert.ok(!messages[0].includes('\n'), 'the message is one line');
      assert.ok((pooled.engine.analyzer?.analyzed ?? 0) > 0, 'the other files went through the pool');
      assert.deepEqual(pooled.report.errors, []);
      assert.deepEqual(allRows(pooled.engine.store), allRows(inline.engine.store));
    });
  }
});
