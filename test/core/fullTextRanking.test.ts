import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  collectCandidates,
  conjunctiveFilter,
  contentRuns,
  fullTextTerms,
  phraseProbes,
  rankedQuery,
  selectiveTerms,
  termStatistics,
  type TermStatistics,
} from '../../src/core/retrieval/candidates';
import { describeTask } from '../../src/core/retrieval/descriptor';
import { bm25, bm25GroupedWithIdf, bm25Idf, bm25WithIdf } from '../../src/core/store';
import { fixtureFactory, openEngine } from './fixtures';

const project = fixtureFactory();

/** Forty files mentioning `quokka` 1..40 times, some also `ledger`, one `zebra` once. */
function corpus(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let index = 1; index <= 40; index++) {
    const words = Array.from({ length: index }, () => 'quokka').join(' ');
    files[`notes/n${index}.md`] =
      `# note ${index}\n\n${words}\n${index % 3 === 0 ? 'the ledger of quokka sightings\n' : ''}${index === 7 ? 'one zebra\n' : ''}`;
  }
  return files;
}

describe('full-text ranking', () => {
  test('bm25 from known document counts and lengths (matchinfo pcy) equals bm25 from FTS4 totals (pcnalx)', async () => {
    const engine = await openEngine(project(corpus()).root);
    await engine.sync();
    const rows = engine.store.database.exec(
      "SELECT matchinfo(search_index, 'pcnalx'), matchinfo(search_index, 'pcy') FROM search_index WHERE search_index MATCH ?",
      ['quokka OR ledger OR path:notes'],
    )[0].values;
    assert.ok(rows.length >= 40);
    for (const [withTotals, withoutTotals] of rows) {
      const x = new Uint32Array((withTotals as Uint8Array).slice().buffer);
      const y = new Uint32Array((withoutTotals as Uint8Array).slice().buffer);
      const [phrases, columns, documents] = [x[0], x[1], x[2]];
      const averages = Array.from(x.subarray(3, 3 + columns));
      const lengths = x.subarray(3 + columns, 3 + 2 * columns);
      const idf: number[] = [];
      for (let phrase = 0; phrase < phrases; phrase++) {
        for (let column = 0; column < columns; column++)
          idf.push(bm25Idf(documents, x[3 + 2 * columns + 3 * (column + phrase * columns) + 2]));
      }
      const weights = [1, 2, 1.5];
      assert.ok(Math.abs(bm25(x, weights) - bm25WithIdf(y, 0, idf, weights, lengths, 0, averages)) < 1e-9);
    }
    await engine.close();
  });

  test("a group's phrases score as one term: hits summed, saturated once, under the group's largest idf", () => {
    // matchinfo 'pcy' for three phrases in three columns: phrase 0 and 1 in the body, phrase 2 in the path.
    const info = new Uint32Array([3, 3, 2, 0, 0, 1, 0, 0, 0, 1, 0]);
    const idf = [2, 2, 2, 1, 1, 1, 3, 3, 3];
    const weights = [1, 2, 1.5];
    const lengths = [10, 3, 2];
    const averages = [12, 3, 2];
    const scratch = (groups: number) => new Float64Array(2 * groups);
    const alone = bm25GroupedWithIdf(info, 0, idf, [0, 1, 2], scratch(3), weights, lengths, 0, averages);
    assert.ok(Math.abs(alone - bm25WithIdf(info, 0, idf, weights, lengths, 0, averages)) < 1e-9, 'one phrase per group is plain bm25');
    const merged = bm25GroupedWithIdf(info, 0, idf, [0, 0, 1], scratch(2), weights, lengths, 0, averages);
    const asOne = bm25WithIdf(new Uint32Array([2, 3, 3, 0, 0, 0, 1, 0]), 0, [2, 2, 2, 3, 3, 3], weights, lengths, 0, averages);
    assert.ok(Math.abs(merged - asOne) < 1e-9, `${merged} vs ${asOne}`);
    assert.ok(merged < alone);
  });

  test("bm25's length normalization is a parameter: without it a row's length does not matter, and 0.75 is the default", () => {
    const info = new Uint32Array([1, 3, 2, 0, 0]);
    const idf = [2, 2, 2];
    const weights = [1, 2, 1.5];
    const averages = [12, 3, 2];
    const at = (length: number, b?: number) => bm25WithIdf(info, 0, idf, weights, [length, 3, 2], 0, averages, b);
    assert.ok(Math.abs(at(5, 0) - at(50, 0)) < 1e-9);
    assert.ok(at(50, 0.5) > at(50, 0.75) && at(50) === at(50, 0.75));
    assert.ok(Math.abs(at(12, 0.5) - at(12, 0.75)) < 1e-9, 'an average row is not affected');
  });

  test("three forms of one request word do not outscore two of the request's words", async () => {
    // Both hold six words; the filler, six unrelated ones each, makes the request's words rare.
    const files: Record<string, string> = {
      'forms.md': 'matches matching matched one two three\n',
      'words.md': 'matched ranges one two three four\n',
    };
    for (let index = 0; index < 30; index++) files[`filler/f${index}.md`] = `filler text number ${index} lorem ipsum\n`;
    const engine = await openEngine(project(files).root);
    await engine.sync();
    const statistics = termStatistics(engine.store, fullTextTerms(['matched', 'ranges'], new Set(['matched', 'ranges'])));
    const query = rankedQuery(selectiveTerms(statistics), statistics);
    assert.ok(query.groups, 'the inflections of a prose word form a group');
    const { hits } = engine.store.search.rankFullText(query, 5);
    const paths = engine.store.chunks.snippetsByRowid(hits.map((hit) => hit.rowid)).map((row) => row.path);
    assert.equal(paths[0], 'words.md', paths.join(', '));
    await engine.close();
  });

  test('rankFullText keeps the best rows in order and scores the included ones whatever their rank', async () => {
    const engine = await openEngine(project(corpus()).root);
    await engine.sync();
    const all = engine.store.search.fullText('"quokka"', 1000);
    assert.ok(all.length >= 40);
    const statistics = termStatistics(engine.store, fullTextTerms(['quokka']));
    const query = rankedQuery(selectiveTerms(statistics), statistics);
    const lowest = all[all.length - 1];
    const { hits, included } = engine.store.search.rankFullText(query, 3, [lowest.rowid]);
    assert.deepEqual(
      hits.map((hit) => hit.rowid),
      all.slice(0, 3).map((hit) => hit.rowid),
    );
    for (const [index, hit] of hits.entries()) assert.ok(Math.abs(hit.bm25 - all[index].bm25) < 1e-9);
    assert.ok(Math.abs((included.get(lowest.rowid) ?? -1) - lowest.bm25) < 1e-9, 'the included low-ranked row carries its own score');
    await engine.close();
  });

  test("rankFullText scores stay equal to FTS4's own totals as files are added, changed and deleted", async () => {
    const fixture = project(corpus());
    const engine = await openEngine(fixture.root);
    await engine.sync();
    const agree = (label: string) => {
      const all = engine.store.search.fullText('"quokka" OR "ledger"', 1000);
      const statistics = termStatistics(engine.store, fullTextTerms(['quokka', 'ledger']));
      const { hits } = engine.store.search.rankFullText(rankedQuery(selectiveTerms(statistics), statistics), 1000);
      assert.equal(hits.length, all.length, label);
      const expected = new Map(all.map((hit) => [hit.rowid, hit.bm25]));
      for (const hit of hits) assert.ok(Math.abs(hit.bm25 - (expected.get(hit.rowid) ?? -1)) < 1e-9, `${label}: row ${hit.rowid}`);
    };
    agree('after the first sync');
    fixture.write('notes/n3.md', 'quokka ledger ledger\n');
    fixture.write('notes/new.md', `# new\n\n${'ledger quokka '.repeat(30)}\n`);
    fixture.remove('notes/n40.md');
    fixture.remove('notes/n12.md');
    await engine.sync();
    agree('after one file changed, one was added and two were deleted');
    await engine.close();
  });

  test('term counts are reused until the index changes', async () => {
    const fixture = project({ 'a.md': 'a quokka here\n' });
    const engine = await openEngine(fixture.root);
    await engine.sync();
    const count = () => termStatistics(engine.store, fullTextTerms(['quokka'])).termDocuments.get('"quokka"')?.[0];
    assert.equal(count(), 1);
    assert.equal(count(), 1);
    fixture.write('b.md', 'another quokka\n');
    await engine.sync();
    assert.equal(count(), 2, 'a new chunk holding the word is counted after the sync');
    await engine.close();
  });
});

describe('the conjunctive filter', () => {
  const statistics = (counts: Record<string, number>): TermStatistics => {
    const words = Object.keys(counts);
    return {
      documents: 100_000,
      termDocuments: new Map(words.map((word) => [`"${word}"`, [counts[word], 0, 0]])),
      weights: new Map(),
      terms: words.map((word) => `"${word}"`),
      termWords: new Map(words.map((word, index) => [`"${word}"`, [index]])),
    };
  };

  test('a single word, or only rare words, scores every match', () => {
    const one = statistics({ upload: 4000 });
    assert.equal(conjunctiveFilter(selectiveTerms(one), one), undefined);
    const rare = statistics({ kaviogrerk: 40, brenem: 90 });
    assert.equal(conjunctiveFilter(selectiveTerms(rare), rare), undefined);
  });

  test('column-bound terms with the longest lists go when all the lists are too long to read', () => {
    const counts: TermStatistics = {
      documents: 800_000,
      termDocuments: new Map([
        ['"raizeath"', [2000, 1700, 3100]],
        ['"cursor"', [14_000, 6_000, 68_000]],
        ['"client"', [15_000, 6_000, 354_000]],
      ]),
      weights: new Map(),
      terms: ['"raizeath"', '"cursor"', '"client"'],
      termWords: new Map([
        ['"raizeath"', [0]],
        ['"cursor"', [1]],
        ['"client"', [2]],
      ]),
    };
    const selected = selectiveTerms(counts).map((term) => term.expression);
    assert.ok(selected.includes('"raizeath"'));
    assert.ok(selected.includes('body:cursor'), 'cursor stays where it is selective');
    assert.ok(!selected.some((expression) => expression.includes('client')), 'client, the longest list, is left out');
    const small: TermStatistics = {
      ...counts,
      termDocuments: new Map([
        ['"raizeath"', [200, 170, 310]],
        ['"cursor"', [1_400, 600, 50_000]],
        ['"client"', [1_500, 600, 60_000]],
      ]),
    };
    assert.ok(
      selectiveTerms(small).some((term) => term.expression === 'path:client'),
      'within the budget nothing is dropped',
    );
  });

  test('rare words count alone; common ones only with the rarest common word', () => {
    const mixed = statistics({ snapshot: 3000, kaviogrerk: 40, widget: 4500, upload: 2000 });
    const filter = conjunctiveFilter(selectiveTerms(mixed), mixed);
    assert.ok(filter);
    assert.equal(filter.expression, '("kaviogrerk") OR (("upload") AND ("snapshot" OR "widget"))');
    // matchinfo numbers phrases in the order they appear; the idf list must follow it.
    assert.deepEqual(
      filter.phrases.map((phrase) => phrase.expression),
      filter.expression.match(/"[^"]+"/g),
    );
    const query = rankedQuery(filter, mixed);
    assert.equal(query.idf.length, filter.phrases.length * 3);
    assert.ok(query.idf[0] > query.idf[3], 'the rare word weighs more than a common one');
  });
});

describe('phrases', () => {
  const files = {
    'src/raise.py': 'def check(value):\n    raise ValueError("refusing to compute the shared quokka ledger")\n',
    'src/scrambled.py': 'def other():\n    # the quokka ledger: compute it, refusing nothing shared\n    return 1\n',
    'src/elsewhere.py': 'def unrelated():\n    return "compute shared things"\n',
    // The phrase's longest run without stopwords, but not the phrase: the live check must drop it.
    'src/partial.py': 'def partial():\n    # keeps a shared quokka ledger, refusing to compute it\n    return 2\n',
  };

  test('probes go from the longest stopword-free run to all the words', () => {
    const runs = contentRuns(['unable', 'to', 'compute', 'legacy', 'release', 'for', 'release', 'gateway']);
    assert.deepEqual(runs, [
      ['compute', 'legacy', 'release'],
      ['release', 'gateway'],
    ]);
    assert.deepEqual(phraseProbes(runs, ['compute', 'gateway', 'release', 'legacy', 'unable']), [
      '"compute legacy release"',
      '"compute legacy release" "release gateway"',
      '"compute" "gateway" "release"',
      '"compute" "gateway" "release" "legacy" "unable"',
    ]);
    assert.deepEqual(contentRuns(['failed', 'to', 'open', 'a', 'file']), [], 'single words between stopwords make no run');
    // With chunk counts: the two rarest words go first when the run's lists are four times longer.
    const listed = (word: string) => ({ compute: 200_000, release: 300_000, legacy: 400_000, gateway: 9_000, unable: 12_000 })[word] ?? 0;
    assert.equal(phraseProbes(runs, ['compute', 'gateway', 'release', 'legacy', 'unable'], listed)[0], '"gateway" "unable"');
    assert.equal(
      phraseProbes(runs, ['compute', 'gateway', 'release', 'legacy', 'unable'], (word) => (word === 'gateway' ? 100_000 : 50_000))[0],
      '"compute legacy release"',
    );
  });

  test('a phrase is found through its probes and checked against the live text; the same words out of order, or only part of the phrase, do not count', async () => {
    const engine = await openEngine(project(files).root);
    await engine.sync();
    const retrieval = await engine.search('"refusing to compute the shared quokka ledger"');
    const phraseHits = retrieval.results.filter((result) => result.reason === 'exact-phrase').map((result) => result.path);
    assert.deepEqual(phraseHits, ['src/raise.py']);
    await engine.close();
  });

  test("the live-text check and FTS4's own phrase query agree", async () => {
    const engine = await openEngine(project(files).root);
    await engine.sync();
    const descriptor = describeTask('"refusing to compute the shared quokka ledger"');
    const withoutLive = await collectCandidates(engine.store, descriptor, 64);
    const live = {
      get: async (relativePath: string) => {
        const text = files[relativePath as keyof typeof files];
        const row = engine.store.catalog.file(relativePath);
        return text !== undefined && row
          ? { ok: true as const, sha256: row.sha256, lines: text.split('\n') }
          : { ok: false as const, reason: 'deleted' };
      },
    };
    const withLive = await collectCandidates(engine.store, descriptor, 64, undefined, live);
    const phrasePaths = (candidates: typeof withLive) =>
      candidates
        .filter((candidate) => candidate.reason === 'exact-phrase')
        .map((candidate) => candidate.snippet.path)
        .sort();
    assert.deepEqual(phrasePaths(withLive), phrasePaths(withoutLive));
    assert.deepEqual(phrasePaths(withLive), ['src/raise.py']);
    await engine.close();
  });
});
