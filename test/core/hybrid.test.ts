import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProjectEngine } from '../../src/core/engine';
import type { Candidate } from '../../src/core/retrieval/candidates';
import { fuseRankings, fusionCeiling } from '../../src/core/retrieval/hybrid';
import type { Retrieval } from '../../src/core/retrieval/retrieve';
import {
  cachedQueryVectors,
  decodeVector,
  defaultEmbedder,
  embeddingDimensions,
  encodeVector,
  FeatureHashingEmbedder,
  queryCacheCapacity,
  sourceKey,
  vectorPool,
  type Embedder,
} from '../../src/core/retrieval/vectors';
import type { SnippetRow } from '../../src/core/store';
import type { SyncContext } from '../../src/core/sync';
import * as path from 'node:path';
import { RegexParser } from '../../src/core/parsing/regexParser';
import { TreeSitterParser } from '../../src/core/parsing/treeSitterParser';
import { fixtureFactory, openEngine as openPlainEngine, recordingPorts } from './fixtures';

const repository = path.resolve(__dirname, '..', '..', '..');
/** Engines with structural parsers, so declarations (and exact tiers) exist. */
const openEngine: typeof openPlainEngine = (root, extra = {}) =>
  openPlainEngine(root, {
    parsers: [
      new TreeSitterParser({
        grammarDir: path.join(repository, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm'),
        queryDir: path.join(repository, 'grammars'),
      }),
      new RegexParser(),
    ],
    ...extra,
  });

const fixture = fixtureFactory();

const project: Record<string, string> = {
  'src/cookies.ts': [
    '/** Splits a Cookie request header into name/value pairs. */',
    'export function parseCookieHeader(header: string): Map<string, string> {',
    '  const jar = new Map<string, string>();',
    "  for (const part of header.split(';')) {",
    "    const [name, value] = part.split('=');",
    '    jar.set(name.trim(), (value ?? "").trim());',
    '  }',
    '  return jar;',
    '}',
    '',
  ].join('\n'),
  'src/session.ts': [
    'export class Session {',
    '  private queue: string[] = [];',
    '  /** Queues a message and flushes when the socket is writable. */',
    '  send(message: string): void {',
    '    this.queue.push(message);',
    '    this.flush();',
    '  }',
    '  flush(): void {',
    '    while (this.queue.length > 0) this.write(this.queue.shift() as string);',
    '  }',
    '  private write(chunk: string): void {',
    '    void chunk;',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/redirects.ts': [
    '// Follows HTTP redirects up to a limit, remembering visited locations.',
    'export function followRedirects(location: string, visited: Set<string>, limit = 10): string {',
    '  if (visited.has(location) || visited.size >= limit) throw new Error("redirect loop detected");',
    '  visited.add(location);',
    '  return location;',
    '}',
    '',
  ].join('\n'),
  'docs/notes.md': '# Notes\n\nCookies are parsed from the request header; sessions queue messages until flushed.\n',
};

function vectorCount(engine: ProjectEngine): number {
  return Number(engine.store.database.exec('SELECT COUNT(*) FROM derived_embeddings')[0]?.values[0]?.[0] ?? 0);
}

function vectorKeys(engine: ProjectEngine): string[] {
  return engine.store.embeddings.storedRows().map((row) => `${row.sourceKey}@${row.sourceHash}`);
}

function contextOf(engine: ProjectEngine): SyncContext {
  return (engine as unknown as { project: SyncContext }).project;
}

/** Results and manifest without the wall-clock timestamp. */
function comparable(retrieval: Retrieval): unknown {
  return {
    results: retrieval.results,
    entries: retrieval.manifest.entries,
    ranking: retrieval.manifest.ranking,
    note: retrieval.manifest.note,
  };
}

class ThrowingEmbedder implements Embedder {
  readonly provider = 'pk-local';
  readonly model = 'feature-hash-v1';
  readonly dimensions = embeddingDimensions;
  calls = 0;
  constructor(private readonly failOn: 'always' | 'queries') {}
  embed(text: string, title?: string): Float32Array {
    this.calls++;
    if (this.failOn === 'always' || title === undefined) throw new Error('injected embedding failure');
    return defaultEmbedder.embed(text, title);
  }
}

describe('feature-hashing embeddings', () => {
  test('256 dimensions, unit length, deterministic, and no network or files involved', () => {
    const embedder = new FeatureHashingEmbedder();
    const first = embedder.embed('parseCookieHeader splits the cookie header', 'parseCookieHeader cookies');
    const second = new FeatureHashingEmbedder().embed('parseCookieHeader splits the cookie header', 'parseCookieHeader cookies');
    assert.equal(first.length, 256);
    assert.deepEqual(Array.from(first), Array.from(second));
    const norm = Math.sqrt(first.reduce((sum, value) => sum + value * value, 0));
    assert.ok(Math.abs(norm - 1) < 1e-5, String(norm));
    assert.deepEqual(Array.from(embedder.embed('')), new Array(256).fill(0));
  });

  test('identifier parts and inflections meet: similar wording scores higher than unrelated text', () => {
    const embedder = new FeatureHashingEmbedder();
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * b[index], 0);
    const query = embedder.embed('where are cookies parsed');
    const related = embedder.embed('function parseCookieHeader(header) { return header.split(";") }', 'parseCookieHeader');
    const unrelated = embedder.embed('function renderToolbar(buttons) { return buttons.map(draw) }', 'renderToolbar');
    assert.ok(dot(query, related) > dot(query, unrelated), `${dot(query, related)} <= ${dot(query, unrelated)}`);
  });

  test('stored form: float32 scale and int8 components round-trip within quantization error', () => {
    const vector = new FeatureHashingEmbedder().embed('a few words of source text with identifiers likeThis and like_that');
    const bytes = encodeVector(vector);
    assert.equal(bytes.length, 4 + 256);
    const { scale, components } = decodeVector(bytes, 256);
    for (let index = 0; index < 256; index++) assert.ok(Math.abs(components[index] * scale - vector[index]) <= scale / 2 + 1e-7);
    assert.throws(() => decodeVector(bytes.slice(0, 100), 256), /expected 260/);
  });
});

describe('derived_embeddings', () => {
  test('sync with hybrid on stores one vector per current chunk, keyed by source, hash, chunking, provider, model and dimensions', async () => {
    const { ports, warnings } = recordingPorts();
    const engine = await openEngine(fixture(project).root, { ports, options: { semantic: true } });
    const report = await engine.sync();
    assert.deepEqual(warnings, [], 'vectors are stored inside the sync batch without errors');
    assert.equal(report.reindexed, Object.keys(project).length);
    const snippets = engine.store.chunks.allCurrentSnippets();
    assert.equal(vectorCount(engine), new Set(snippets.map((snippet) => sourceKey(snippet))).size);
    const rows = engine.store.embeddings.storedRows();
    assert.equal(rows.length, vectorCount(engine));
    for (const { sourceKey: key, sourceHash: hash, chunkingVersion: chunking, provider, model, dimensions } of rows) {
      const snippet = snippets.find((candidate) => sourceKey(candidate) === key);
      assert.ok(snippet, String(key));
      assert.equal(hash, snippet.fileHash);
      assert.equal(chunking, snippet.parserVersion);
      assert.equal(provider, 'pk-local');
      assert.equal(model, 'feature-hash-v1');
      assert.equal(dimensions, 256);
    }
    await engine.close();
  });

  test('hybrid off stores nothing; turning it on fills the vectors in from the live files', async () => {
    const root = fixture(project).root;
    const lexical = await openEngine(root);
    await lexical.sync();
    assert.equal(vectorCount(lexical), 0);
    const result = await lexical.search('where are cookies parsed', { semantic: true });
    assert.equal(result.manifest.ranking, 'hybrid');
    assert.ok(vectorCount(lexical) > 0, 'the first hybrid query fills in missing vectors');
    await lexical.close();

    const semantic = await openEngine(root, { options: { semantic: true } });
    await semantic.sync();
    assert.equal(vectorCount(semantic), new Set(semantic.store.chunks.allCurrentSnippets().map((snippet) => sourceKey(snippet))).size);
    await semantic.close();
  });

  test('vectors filled in later equal the vectors computed at index time', async () => {
    const nested = [
      'class Outer:',
      '    """Holds helpers."""',
      '    limit = 3',
      '',
      '    def first(self):',
      '        return "first body"',
      '',
      '    def second(self):',
      '        return "second body"',
      '',
    ].join('\n');
    const root = fixture({ ...project, 'src/nested.py': nested }).root;
    const vectors = (engine: ProjectEngine) =>
      engine.store.embeddings
        .storedRows()
        .map((row) => [row.sourceKey, row.sourceHash, row.chunkingVersion, Buffer.from(row.vector).toString('hex')].join(' '));
    const atIndex = await openEngine(root, { options: { semantic: true } });
    await atIndex.sync();
    const later = await openEngine(root);
    await later.sync();
    assert.equal(vectorCount(later), 0);
    await later.search('first body', { semantic: true });
    assert.ok(vectors(atIndex).length > 0);
    assert.deepEqual(vectors(later), vectors(atIndex));
    await atIndex.close();
    await later.close();
  });

  test('a changed file loses only its own vectors; a deleted file loses all of its vectors', async () => {
    const project2 = fixture(project);
    const engine = await openEngine(project2.root, { options: { semantic: true } });
    await engine.sync();
    const before = vectorKeys(engine);
    const othersBefore = before.filter((key) => !key.startsWith('src/session.ts#'));
    project2.edit('src/session.ts', project['src/session.ts'].replace('Queues a message', 'Queues one message'));
    await engine.sync();
    const after = vectorKeys(engine);
    assert.deepEqual(
      after.filter((key) => !key.startsWith('src/session.ts#')),
      othersBefore,
    );
    const sessionHash = engine.store.catalog.file('src/session.ts')?.sha256;
    const session = after.filter((key) => key.startsWith('src/session.ts#'));
    assert.ok(session.length > 0);
    assert.ok(
      session.every((key) => key.endsWith(`@${sessionHash}`)),
      'only vectors of the new content remain',
    );
    project2.remove('src/redirects.ts');
    await engine.sync();
    assert.deepEqual(
      vectorKeys(engine).filter((key) => key.startsWith('src/redirects.ts#')),
      [],
    );
    await engine.close();
  });

  test('a file named like another file plus "#..." keeps its vectors when that file goes', async () => {
    const project3 = fixture({ 'a.ts': 'export const alpha = 1;\n', 'a.ts#b.ts': 'export const beta = 2;\n' });
    const engine = await openEngine(project3.root, { options: { semantic: true } });
    await engine.sync();
    project3.remove('a.ts');
    await engine.sync();
    const keys = vectorKeys(engine);
    assert.ok(
      keys.some((key) => key.startsWith('a.ts#b.ts#L')),
      keys.join(', '),
    );
    assert.ok(!keys.some((key) => /^a\.ts#L/.test(key)), keys.join(', '));
    await engine.close();
  });
});

describe('hybrid ranking', () => {
  test('the cosine pool is bounded and the query-vector cache is bounded', async () => {
    const engine = await openEngine(fixture(project).root, { options: { semantic: true } });
    await engine.sync();
    const context = contextOf(engine);
    const pool = await vectorPool(context, 'cookie header session message', 2);
    assert.ok(pool.length <= 2);
    for (let index = 0; index < queryCacheCapacity + 20; index++) await vectorPool(context, `distinct query ${index}`, 2);
    assert.equal(cachedQueryVectors(engine.store), queryCacheCapacity);
    await engine.close();
  });

  test('fusion never moves protected candidates and orders the rest deterministically', () => {
    const row = (rowid: number, path = `f${rowid}.ts`): SnippetRow => ({
      rowid,
      id: `id${rowid}`,
      path,
      fileHash: 'h',
      startLine: 1,
      endLine: 5,
      tokens: 10,
      stale: false,
      chunkKind: 'window',
      parser: 'text',
      parserVersion: 'v',
      symbolId: null,
      name: null,
      kind: null,
      qualifiedName: null,
      signature: null,
      parent: null,
      symbolStart: null,
      symbolEnd: null,
      imports: null,
      refs: null,
    });
    const lexical: Candidate[] = [
      { snippet: row(1), reason: 'exact-symbol', base: 170, matched: 'a' },
      { snippet: row(2), reason: 'exact-phrase', base: 90, matched: 'b' },
      { snippet: row(3), reason: 'full-text', base: 50, matched: 'c' },
      { snippet: row(4), reason: 'full-text', base: 40, matched: 'c' },
    ];
    const input = {
      lexical,
      pool: [
        { rowid: 9, cosine: 0.9 },
        { rowid: 4, cosine: 0.8 },
        { rowid: 1, cosine: 0.7 },
      ],
      poolRows: [row(9), row(4), row(1)],
      fromVector: (snippet: SnippetRow): Candidate => ({ snippet, reason: 'semantic', base: 20, matched: 'v' }),
    };
    const { protectedCandidates, fused } = fuseRankings(input);
    assert.deepEqual(
      protectedCandidates.map((candidate) => candidate.snippet.rowid),
      [1, 2],
    );
    assert.ok(fused.every((candidate) => candidate.base < fusionCeiling));
    assert.deepEqual(
      fused.map((candidate) => candidate.snippet.rowid),
      [4, 3, 9],
      'agreement first, then lexical, then vector-only',
    );
    assert.deepEqual(fuseRankings(input), { protectedCandidates, fused });
  });

  test('exact matches are never displaced by vectors', async () => {
    const engine = await openEngine(fixture(project).root, { options: { semantic: true } });
    await engine.sync();
    for (const query of ['parseCookieHeader', 'Session.send', 'src/redirects.ts', '"redirect loop detected"']) {
      const lexical = await engine.search(query, { semantic: false });
      const hybrid = await engine.search(query, { semantic: true });
      assert.equal(hybrid.manifest.ranking, 'hybrid');
      const strong = (retrieval: Retrieval) =>
        retrieval.results.filter((result) => result.score >= 82).map((result) => `${result.path}:${result.startLine}:${result.reason}`);
      assert.ok(strong(lexical).length > 0, query);
      assert.deepEqual(strong(hybrid), strong(lexical), query);
      assert.deepEqual(
        hybrid.results.slice(0, strong(lexical).length).map((result) => result.id),
        lexical.results.slice(0, strong(lexical).length).map((result) => result.id),
        query,
      );
    }
    await engine.close();
  });

  test('same query twice with hybrid on gives identical results and manifest, also from a fresh engine', async () => {
    const root = fixture(project).root;
    const first = await openEngine(root, { options: { semantic: true } });
    await first.sync();
    const a = await first.search('how are cookies parsed from the header');
    const b = await first.search('how are cookies parsed from the header');
    assert.equal(a.manifest.ranking, 'hybrid');
    assert.deepEqual(comparable(b), comparable(a));
    await first.close();
    const second = await openEngine(root, { options: { semantic: true } });
    await second.sync();
    const c = await second.search('how are cookies parsed from the header');
    assert.deepEqual(comparable(c), comparable(a));
    await second.close();
  });

  test('a changed file with hybrid on returns the new content and hash', async () => {
    const project4 = fixture(project);
    const engine = await openEngine(project4.root, { options: { semantic: true } });
    await engine.sync();
    const before = await engine.search('followRedirects');
    project4.write('src/redirects.ts', project['src/redirects.ts'].replace('limit = 10', 'limit = 20'));
    const afterChange = await engine.search('followRedirects');
    assert.equal(afterChange.results[0].path, 'src/redirects.ts');
    assert.match(afterChange.results[0].text, /limit = 20/);
    assert.notEqual(afterChange.results[0].sha256, before.results[0].sha256);
    assert.equal(afterChange.manifest.ranking, 'hybrid');
    await engine.close();
  });
});

describe('vector failures fall back to the lexical result unchanged', () => {
  for (const failOn of ['always', 'queries'] as const) {
    test(`an embedding function that throws (${failOn === 'always' ? 'at index and query time' : 'at query time only'})`, async () => {
      const root = fixture(project).root;
      const { ports, warnings } = recordingPorts();
      const embedder = new ThrowingEmbedder(failOn);
      const engine = await openEngine(root, { ports, embedder, options: { semantic: true } });
      const report = await engine.sync();
      assert.deepEqual(report.errors, []);
      assert.ok(engine.store.counts().snippets > 0, 'indexing still happened');
      if (failOn === 'always') assert.equal(vectorCount(engine), 0);
      for (const query of ['where are cookies parsed', 'parseCookieHeader', 'session flush queue']) {
        const lexical = await engine.search(query, { semantic: false });
        const hybrid = await engine.search(query, { semantic: true });
        assert.equal(hybrid.manifest.ranking, 'lexical-fallback', query);
        assert.deepEqual(hybrid.results, lexical.results, query);
        assert.deepEqual(hybrid.manifest.entries, lexical.manifest.entries, query);
      }
      assert.ok(embedder.calls > 0);
      assert.ok(
        warnings.some((warning) => /injected embedding failure/.test(warning)),
        warnings.join('\n'),
      );
      await engine.close();
    });
  }

  test('a corrupt stored vector', async () => {
    const engine = await openEngine(fixture(project).root, { options: { semantic: true } });
    await engine.sync();
    engine.store.database.exec(
      "UPDATE derived_embeddings SET vector = x'00' WHERE file_id = (SELECT id FROM project_files WHERE path = 'src/session.ts')",
    );
    engine.store.markChanged();
    const lexical = await engine.search('session flush queue', { semantic: false });
    const hybrid = await engine.search('session flush queue', { semantic: true });
    assert.equal(hybrid.manifest.ranking, 'lexical-fallback');
    assert.deepEqual(hybrid.results, lexical.results);
    await engine.close();
  });
});
