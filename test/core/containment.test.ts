import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { ContainmentError } from '../../src/core/containedRead';
import type { ProjectEngine } from '../../src/core/engine';
import { nodePorts } from '../../src/core/ports';
import { fixtureFactory, openEngine, randomFrom, tempFile } from './fixtures';

const fixture = fixtureFactory();
const repository = path.resolve(__dirname, '..', '..', '..');
const cli = path.join(repository, 'dist', 'cli.js');
const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const posixOnly = process.platform === 'win32' ? 'symbolic links and FIFOs need a POSIX file system' : false;

/**
 * Runs the built CLI as a child process. A command that has not returned within `timeoutMs` is
 * killed and fails the test: a hang (a FIFO opened for reading) is the failure these tests catch.
 */
function pk(args: string[], timeoutMs = 60_000): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
  assert.equal(result.error, undefined, `pk ${args.join(' ')} did not return within ${timeoutMs} ms`);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A one-line refusal with a non-zero exit, nothing on stdout, and (when given) none of `secret` anywhere. */
function assertRefused(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp, secret?: string): void {
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, pattern);
  if (secret) assert.ok(!result.stderr.includes(secret), 'the refusal quotes the secret');
}

/**
 * The bound for one command near a FIFO: 5 s beyond what the same CLI needs, right now, for a
 * command that reads no project file (`baseline`). Starting node and loading the database alone
 * takes seconds when many processes share two cores; a FIFO opened for reading blocks forever.
 */
function fifoBound(baseline: string[]): number {
  const started = process.hrtime.bigint();
  assert.equal(pk(baseline).code, 0);
  return Number((process.hrtime.bigint() - started) / 1_000_000n) + 5_000;
}

/**
 * Runs the CLI while checking, every few milliseconds, whether any process holds `fifo` open for
 * reading (a non-blocking open for writing succeeds only then; ENXIO otherwise). The command must
 * never open it, and must exit within `boundMs`; either failure kills it and fails the test.
 */
function pkNeverReading(fifo: string, args: string[], boundMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const fail = (message: string) => {
      clearTimeout(timer);
      clearInterval(probe);
      child.kill('SIGKILL');
      reject(new Error(`pk ${args.join(' ')} ${message}`));
    };
    const timer = setTimeout(() => fail(`did not return within ${boundMs} ms`), boundMs);
    const probe = setInterval(() => {
      let descriptor: number;
      try {
        descriptor = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      } catch {
        return;
      }
      fs.closeSync(descriptor);
      fail('opened the FIFO for reading');
    }, 5);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(probe);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A rejection whose message matches `pattern` and never quotes `secret`. */
function refusal(pattern: RegExp, secret: string): (error: Error) => boolean {
  return (error) => pattern.test(error.message) && !error.message.includes(secret);
}

function refusedAs(refusal: ContainmentError['refusal']): (error: unknown) => boolean {
  return (error) => error instanceof ContainmentError && error.refusal === refusal;
}

/** The manifest entry of the FIFO, left out for what it is. */
function refusedPipe(entry: { path: string; reason: string }): boolean {
  return entry.path === 'src/pipe.ts' && entry.reason === 'not-regular-file';
}

async function indexed(files: Record<string, string>, options: { git?: boolean; useGit?: boolean } = {}) {
  const project = fixture(files);
  if (options.git !== false) project.initGit();
  const engine = await openEngine(project.root, { options: { useGit: options.useGit ?? true } });
  await engine.sync();
  return { project, engine };
}

async function citationOf(engine: ProjectEngine, query: string, relativePath: string): Promise<string> {
  const result = (await engine.search(query)).results.find((snippet) => snippet.path === relativePath);
  assert.ok(result, `${relativePath} is found by ${query}`);
  return result.citation;
}

describe('reads never leave the canonical root', { skip: posixOnly }, () => {
  test('a symlinked directory pointing outside the root is refused by the read itself, by get and by the CLI', async () => {
    const shadow = `root:${randomFrom(alnum, 24)}:19000:0:99999:7:::\n`;
    const outside = fixture({ shadow });
    const { project, engine } = await indexed({ 'src/a.ts': 'export const inside = 1;\n' });
    fs.symlinkSync(outside.root, project.path('link'));
    fs.symlinkSync(project.path('src'), project.path('alias'));
    await engine.sync();
    const read = (relativePath: string) => nodePorts().fs.readFileBlocking(project.root, relativePath, 1_000_000);
    assert.throws(() => read('link/shadow'), refusedAs('symlink'));
    // A link to a folder inside the project is refused as well: every file has one path only.
    assert.throws(() => read('alias/a.ts'), refusedAs('symlink'));
    assert.equal(Buffer.from(read('src/a.ts').bytes).toString('utf8'), 'export const inside = 1;\n');
    await assert.rejects(engine.get('link/shadow#L1-L1'), /link\/shadow is excluded from the index \(symlink\)/);
    await assert.rejects(engine.get('alias/a.ts#L1-L1'), /alias\/a\.ts is excluded from the index \(symlink\)/);
    await engine.close();
    const db = tempFile('containment.sqlite');
    assert.equal(pk(['index', project.root, '--db', db]).code, 0);
    const refused = pk(['get', 'link/shadow#L1-L1', '--root', project.root, '--db', db]);
    assertRefused(refused, /excluded from the index \(symlink\)/, shadow.trim());
  });

  test('paths that name no project file are refused before any read', async () => {
    const { engine } = await indexed({ 'a.ts': 'export const a = 1;\n' });
    for (const citation of ['../outside.ts#L1-L2', '/etc/passwd#L1-L1', 'src/../../x.ts#L1-L1', './/a.ts#L1-L1']) {
      await assert.rejects(engine.get(citation), /outside the project/, citation);
    }
    assert.throws(() => nodePorts().fs.readFileBlocking(engine.root, '../a.ts', 1000), refusedAs('outside-root'));
    await engine.close();
  });

  test('a parent directory swapped for a symlink after indexing: get, context and sync never quote the outside file', async () => {
    const marker = `OUTSIDE${randomFrom(alnum, 16)}`;
    const { project, engine } = await indexed({
      'src/config.ts': 'export const endpointSetting = "inside";\n',
      'src/other.ts': 'export const other = 2;\n',
    });
    const citation = await citationOf(engine, 'endpointSetting', 'src/config.ts');
    const outside = fixture({ 'config.ts': `export const endpointSetting = "${marker}";\n` });
    fs.renameSync(project.path('src'), project.path('src-moved'));
    fs.symlinkSync(outside.root, project.path('src'));
    for (const attempt of [citation, citation.replace(/@.*$/, '')]) {
      await assert.rejects(engine.get(attempt), refusal(/is not served: symlink/, marker));
    }
    const context = await engine.context('endpointSetting');
    const quotesOutside = (block: string) => block.includes(marker) || block.includes('"src/config.ts"');
    assert.ok(!context.blocks.some(quotesOutside), 'no block quotes the outside file');
    const entry = context.retrieval.manifest.entries.find((candidate) => candidate.path === 'src/config.ts');
    assert.equal(entry?.included, false);
    assert.equal(entry?.reason, 'symlink');
    assert.equal(engine.store.catalog.file('src/config.ts'), undefined, 'verification dropped the file');
    await engine.sync();
    assert.equal((await engine.search(marker)).results.length, 0);
    const throughLink = [...engine.store.catalog.files().keys()].filter((indexedPath) => indexedPath.startsWith('src/'));
    assert.deepEqual(throughLink, [], 'nothing is indexed through the link');
    await engine.close();
  });

  test('a swapped parent holding byte-identical content is still refused: the hash alone proves nothing about the path', async () => {
    const content = 'export function identicalContent(): number {\n  return 42;\n}\n';
    const { project, engine } = await indexed({ 'lib/same.ts': content });
    const citation = await citationOf(engine, 'identicalContent', 'lib/same.ts');
    const outside = fixture({ 'same.ts': content });
    fs.rmSync(project.path('lib'), { recursive: true });
    fs.symlinkSync(outside.root, project.path('lib'));
    await assert.rejects(engine.get(citation), /lib\/same\.ts is not served: symlink/);
    assert.equal((await engine.context('identicalContent')).blocks.length, 0);
    const known = await openEngine(project.root);
    await known.sync();
    assert.equal(known.store.catalog.file('lib/same.ts'), undefined);
    await known.close();
    await engine.close();
  });

  test('an indexed file re-indexed after its parent became a link is removed, not read through the link', async () => {
    const marker = `OUTSIDE${randomFrom(alnum, 16)}`;
    const { project, engine } = await indexed({ 'pkg/mod.ts': 'export const mod = 1;\n' });
    const outside = fixture({ 'mod.ts': `export const mod = "${marker}";\n` });
    fs.rmSync(project.path('pkg'), { recursive: true });
    fs.symlinkSync(outside.root, project.path('pkg'));
    assert.deepEqual(await engine.syncKnownFiles(['pkg/mod.ts']), { reindexed: 0, removed: 1 });
    assert.equal((await engine.search(marker)).results.length, 0);
    await engine.close();
  });

  test('an indexed file replaced by a symlink is refused by get and dropped by context', async () => {
    const secret = `${randomFrom(alnum, 32)}`;
    const outside = fixture({ 'target.txt': `export const replaced = "${secret}";\n` });
    const { project, engine } = await indexed({ 'replaced.ts': 'export const replaced = 1;\n' });
    fs.rmSync(project.path('replaced.ts'));
    fs.symlinkSync(path.join(outside.root, 'target.txt'), project.path('replaced.ts'));
    await assert.rejects(engine.get('replaced.ts#L1-L1'), /replaced\.ts is not served: symlink/);
    const context = await engine.context('replaced');
    assert.ok(context.blocks.every((block) => !block.includes(secret)));
    await engine.close();
  });
});

describe('get serves only files the index holds as current', () => {
  test('.git/config with a token in a remote URL is refused, and the token is never printed', async () => {
    const token = `ghp_${randomFrom(alnum, 36)}`;
    const project = fixture({ 'a.ts': 'export const a = 1;\n' });
    project.initGit();
    project.git('remote', 'add', 'origin', `https://pk:${token}@example.invalid/repo.git`);
    const engine = await openEngine(project.root);
    await engine.sync();
    await assert.rejects(engine.get('.git/config#L1-L20'), refusal(/\.git\/config is never indexed \(vcs\)/, token));
    await engine.close();
    const db = tempFile('gitconfig.sqlite');
    assert.equal(pk(['index', project.root, '--db', db]).code, 0);
    assertRefused(pk(['get', '.git/config#L1-L20', '--root', project.root, '--db', db]), /never indexed \(vcs\)/, token);
  });

  test('git-ignored files, node_modules, .env.local and files never indexed are refused', async () => {
    const envValue = randomFrom(alnum, 40);
    const { project, engine } = await indexed({
      '.gitignore': 'ignored.txt\nbuild-cache/\n',
      'ignored.txt': 'ignored but present\n',
      'build-cache/out.ts': 'export const cached = 1;\n',
      'node_modules/pkg/index.js': 'module.exports = 1;\n',
      '.env.local': `API_TOKEN=${envValue}\n`,
      'src/a.ts': 'export const a = 1;\n',
    });
    const db = tempFile('refusals.sqlite');
    assert.equal(pk(['index', project.root, '--db', db]).code, 0);
    project.write('src/new.ts', 'export const added = 1;\n');
    const refusals: Array<[string, RegExp]> = [
      ['ignored.txt', /ignored\.txt is not in the index/],
      ['build-cache/out.ts', /not in the index/],
      ['node_modules/pkg/index.js', /is (excluded from the index|never indexed) \(dependency\)/],
      ['.env.local', /\.env\.local is excluded from the index \(env-file\)/],
      ['src/new.ts', /src\/new\.ts is not in the index/],
      ['src/missing.ts', /not in the index/],
    ];
    for (const [relativePath, pattern] of refusals) {
      await assert.rejects(engine.get(`${relativePath}#L1-L1`), refusal(pattern, envValue), relativePath);
    }
    assert.equal((await engine.get('src/a.ts#L1-L1')).text, 'export const a = 1;');
    await engine.close();
    for (const [relativePath, pattern] of refusals) {
      assertRefused(pk(['get', `${relativePath}#L1-L1`, '--root', project.root, '--db', db]), pattern, envValue);
    }
  });

  test('a walk without git records excluded folders once, and get still names their reason', async () => {
    const files = { 'node_modules/pkg/index.js': 'module.exports = 1;\n', 'a.ts': 'export const a = 1;\n' };
    const { engine } = await indexed(files, { git: false, useGit: false });
    assert.ok(engine.store.catalog.exclusion('node_modules/'), 'the walk recorded the folder');
    await assert.rejects(engine.get('node_modules/pkg/index.js#L1-L1'), /excluded from the index \(dependency\)/);
    await engine.close();
  });

  test('a file that just became secret, binary or too large is refused with or without @sha', async () => {
    const dashes = '-----';
    const body = randomFrom(`${alnum}+/`, 64);
    const project = fixture({
      'key.ts': 'export const key = 1;\n',
      'blob.ts': 'export const blob = 1;\n',
      'big.ts': 'export const big = 1;\n',
    });
    project.initGit();
    const engine = await openEngine(project.root, { options: { bounds: { maxFileBytes: 2_000 } } });
    await engine.sync();
    const cited = new Map<string, string>();
    for (const name of ['key', 'blob', 'big']) cited.set(name, await citationOf(engine, `${name}.ts`, `${name}.ts`));
    project.write('key.ts', `${dashes}BEGIN RSA PRIVATE KEY${dashes}\n${body}\n${body}\n${dashes}END RSA PRIVATE KEY${dashes}\n`);
    project.write('blob.ts', Buffer.from([0x65, 0, 0, 1, 2, 0, 0, 0, 3, 0, 0x66, 0x0a]));
    project.write('big.ts', `// ${'x'.repeat(3_000)}\n`);
    const expected: Record<string, RegExp> = {
      key: /key\.ts is not served: (private-key|secret-content)/,
      blob: /blob\.ts is not served: binary-content/,
      big: /big\.ts is not served: too-large/,
    };
    for (const [name, pattern] of Object.entries(expected)) {
      for (const citation of [`${name}.ts#L1-L1`, cited.get(name) as string]) {
        await assert.rejects(engine.get(citation), refusal(pattern, body), citation);
      }
    }
    await engine.close();
  });
});

describe('non-regular files are never waited on', { skip: posixOnly }, () => {
  test('a FIFO replacing an indexed file: get, search, context and index never open it and return within 5 s', async () => {
    const project = fixture({
      'src/pipe.ts': 'export function pipeReader(): string {\n  return "pipe contents";\n}\n',
      'src/b.ts': 'export const b = 1;\n',
    });
    project.initGit();
    const db = tempFile('fifo.sqlite');
    assert.equal(pk(['index', project.root, '--db', db]).code, 0);
    const found = JSON.parse(pk(['search', 'pipeReader', '--root', project.root, '--db', db, '--json']).stdout) as {
      results: Array<{ citation: string }>;
    };
    const citation = found.results[0].citation;
    // Each command that verifies gets its own copy of the index, which still holds src/pipe.ts as current.
    const searchDb = tempFile('fifo-search.sqlite');
    const contextDb = tempFile('fifo-context.sqlite');
    fs.copyFileSync(db, searchDb);
    fs.copyFileSync(db, contextDb);
    fs.rmSync(project.path('src/pipe.ts'));
    const fifo = project.path('src/pipe.ts');
    execFileSync('mkfifo', [fifo]);
    assert.throws(() => nodePorts().fs.readFileBlocking(project.root, 'src/pipe.ts', 1000), refusedAs('not-regular-file'));
    const boundMs = fifoBound(['health', '--root', project.root, '--db', db]);
    const cited = await pkNeverReading(fifo, ['get', citation, '--root', project.root, '--db', db], boundMs);
    assertRefused(cited, /src\/pipe\.ts is not served: not-regular-file \(src\/pipe\.ts is a FIFO\)/);
    const uncited = await pkNeverReading(fifo, ['get', 'src/pipe.ts#L1-L2', '--root', project.root, '--db', db], boundMs);
    assertRefused(uncited, /not-regular-file/);
    const search = await pkNeverReading(fifo, ['search', 'pipeReader', '--root', project.root, '--db', searchDb, '--json'], boundMs);
    assert.equal(search.code, 0, search.stderr);
    const parsed = JSON.parse(search.stdout) as {
      results: Array<{ path: string }>;
      manifest: { entries: Array<{ path: string; reason: string }> };
    };
    assert.ok(parsed.results.every((result) => result.path !== 'src/pipe.ts'));
    assert.ok(parsed.manifest.entries.some(refusedPipe));
    const context = await pkNeverReading(fifo, ['context', 'pipeReader', '--root', project.root, '--db', contextDb, '--json'], boundMs);
    assert.equal(context.code, 0, context.stderr);
    const quoted = JSON.parse(context.stdout) as { blocks: string[]; manifest: { entries: Array<{ path: string; reason: string }> } };
    assert.ok(quoted.blocks.every((block) => !block.includes('"src/pipe.ts"')));
    assert.ok(quoted.manifest.entries.some(refusedPipe));
    const reindexed = await pkNeverReading(fifo, ['index', project.root, '--db', db, '--json'], boundMs);
    assert.equal(reindexed.code, 0, reindexed.stderr);
    const engine = await openEngine(project.root);
    await engine.sync();
    assert.equal(engine.store.catalog.file('src/pipe.ts'), undefined);
    await assert.rejects(engine.get('src/pipe.ts#L1-L1'), /not in the index/);
    await engine.close();
  });

  test('a socket replacing an indexed file is refused by get and dropped by context, never connected to', async () => {
    const { project, engine } = await indexed({ 'socket.ts': 'export function socketProbe(): number {\n  return 1;\n}\n' });
    fs.rmSync(project.path('socket.ts'));
    const server = net.createServer((connection) => connection.destroy());
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(project.path('socket.ts'), resolve));
    try {
      await assert.rejects(engine.get('socket.ts#L1-L1'), /socket\.ts is not served: not-regular-file \(socket\.ts is a socket\)/);
      const context = await engine.context('socketProbe');
      assert.equal(context.blocks.length, 0);
      assert.equal(context.retrieval.manifest.entries.find((entry) => entry.path === 'socket.ts')?.reason, 'not-regular-file');
      assert.equal(connections, 0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.close();
    }
  });

  test('a .pkignore that is a FIFO or a link is left out with a warning, never waited on or followed', async () => {
    const project = fixture({ 'a.ts': 'export const a = 1;\n' });
    execFileSync('mkfifo', [project.path('.pkignore')]);
    const warnings: string[] = [];
    const base = nodePorts();
    const ports = { ...base, log: { ...base.log, warn: (message: string) => warnings.push(message) } };
    const engine = await openEngine(project.root, { ports, options: { useGit: false } });
    const report = await engine.sync();
    assert.deepEqual(report.errors, []);
    assert.ok(engine.store.catalog.file('a.ts'));
    assert.ok(
      warnings.some((warning) => /\.pkignore was not read: \.pkignore is a FIFO/.test(warning)),
      warnings.join('\n'),
    );
    await engine.close();
    const outside = fixture({ rules: 'a.ts\n' });
    const linked = fixture({ 'a.ts': 'export const a = 1;\n' });
    fs.symlinkSync(path.join(outside.root, 'rules'), linked.path('.pkignore'));
    const linkedEngine = await openEngine(linked.root, { options: { useGit: false } });
    await linkedEngine.sync();
    assert.ok(linkedEngine.store.catalog.file('a.ts'), 'the outside rules were not applied');
    await linkedEngine.close();
  });
});
