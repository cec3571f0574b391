import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { jsoupCommit } from '../quality/honoCorpus';
import { honoQueries } from '../quality/honoQueries';
import { jsoupQueries } from '../quality/jsoupQueries';
import { bm25Document, bm25Rank, bm25Scores, bm25Tokens } from '../quality/localization/bm25';
import { queryOf, splitOf } from '../quality/localization/extract';
import { allRepositories, extraRepositories, isSourceFile, localizationRepositories } from '../quality/localization/repositories';
import { loadInstances, localizationFigures, rankedOutcome, splitArgument } from '../quality/localization/run';

const repository = (name: string) => {
  const found = allRepositories.find((candidate) => candidate.name === name);
  assert.ok(found, name);
  return found;
};

describe('localization set: BM25 baseline', () => {
  test('identifier parts are tokens beside the whole identifier', () => {
    assert.deepEqual(bm25Tokens('parseHttpHeader x_y'), ['parsehttpheader', 'parse', 'http', 'header', 'x_y', 'x', 'y']);
  });

  test('Okapi score with k1 1.2 and b 0.75 matches the hand computation', () => {
    const documents = new Map([
      ['a.ts', bm25Document('alpha beta')],
      ['b.ts', bm25Document('beta gamma gamma')],
    ]);
    const scores = bm25Scores('gamma', documents);
    assert.equal(scores.length, 1);
    assert.equal(scores[0].path, 'b.ts');
    // idf = ln(1 + (2 - 1 + 0.5) / (1 + 0.5)) = ln 2; tf 2, length 3, average length 2.5.
    const expected = (Math.log(2) * 2 * 2.2) / (2 + 1.2 * (0.25 + (0.75 * 3) / 2.5));
    assert.ok(Math.abs(scores[0].score - expected) < 1e-12, `${scores[0].score} vs ${expected}`);
  });

  test('a file matching more of the query ranks first, and ties break by path', () => {
    const documents = new Map([
      ['common.go', bm25Document('server server server')],
      ['rare.go', bm25Document('server rotate')],
      ['z.go', bm25Document('unrelated')],
      ['y.go', bm25Document('rotate')],
    ]);
    assert.deepEqual(bm25Rank('rotate the server log', documents).slice(0, 1), ['rare.go']);
    assert.deepEqual(bm25Rank('nothing matches', documents), []);
    const tied = new Map([
      ['b.py', bm25Document('token')],
      ['a.py', bm25Document('token')],
    ]);
    assert.deepEqual(bm25Rank('token', tied), ['a.py', 'b.py']);
  });
});

describe('localization set: metrics', () => {
  test('rank of the first answer file, All@10 and the figures', () => {
    const hit = rankedOutcome(['x.ts', 'a.ts', 'b.ts'], ['b.ts', 'a.ts'], 120);
    assert.equal(hit.rank, 2);
    assert.equal(hit.allWithin10, true);
    const partial = rankedOutcome([...Array.from({ length: 10 }, (_, index) => `f${index}.ts`), 'late.ts'], ['f0.ts', 'late.ts'], 0);
    assert.equal(partial.rank, 1);
    assert.equal(partial.allWithin10, false);
    const miss = rankedOutcome(['x.ts'], ['y.ts'], 10);
    assert.equal(miss.rank, undefined);
    const figures = localizationFigures([hit, partial, miss]);
    assert.equal(figures.accAt1, 33.3);
    assert.equal(figures.accAt5, 66.7);
    assert.equal(figures.mrr, Math.round(((1 / 2 + 1) / 3) * 1000) / 1000);
    assert.equal(figures.allAt10, 33.3);
    assert.equal(figures.found, 66.7);
    assert.equal(figures.meanTokens, 43);
  });

  test('--split defaults to tune and refuses anything but tune, held-out or all', () => {
    assert.equal(splitArgument([]), 'tune');
    assert.equal(splitArgument(['--split', 'held-out']), 'held-out');
    assert.equal(splitArgument(['--split', 'all']), 'all');
    assert.throws(() => splitArgument(['--split', 'heldout']), /--split takes tune, held-out or all/);
    assert.throws(() => splitArgument(['--split']), /got nothing/);
  });
});

describe('localization set: extraction rules', () => {
  test('tests, docs and generated files are not source', () => {
    assert.equal(isSourceFile('src/middleware/etag/index.ts', repository('honojs/hono')), true);
    assert.equal(isSourceFile('src/middleware/etag/index.test.ts', repository('honojs/hono')), false);
    assert.equal(isSourceFile('src/types.d.ts', repository('honojs/hono')), false);
    assert.equal(isSourceFile('benchmarks/routers/src/bench.ts', repository('honojs/hono')), false);
    assert.equal(isSourceFile('src/terminal_test.go', repository('junegunn/fzf')), false);
    assert.equal(isSourceFile('shell/key-bindings.zsh', repository('junegunn/fzf')), true);
    assert.equal(isSourceFile('src/test/java/org/jsoup/nodes/ElementTest.java', repository('jhy/jsoup')), false);
    assert.equal(isSourceFile('src/main/java/org/jsoup/nodes/Element.java', repository('jhy/jsoup')), true);
    assert.equal(isSourceFile('tests/test_text.py', repository('Textualize/rich')), false);
    assert.equal(isSourceFile('docs/source/conf.py', repository('Textualize/rich')), false);
    assert.equal(isSourceFile('CHANGELOG.md', repository('casey/just')), false);
  });

  test('trailers leave the query; the split is a stable hash', () => {
    const message = 'Fix panic on empty path (#1)\n\nbody text\n\nSigned-off-by: A <a@b>\nCo-authored-by: B <b@c>\n';
    assert.equal(queryOf(message), 'Fix panic on empty path (#1)\n\nbody text');
    assert.equal(splitOf('casey/just', 'abc'), splitOf('casey/just', 'abc'));
    const splits = Array.from({ length: 300 }, (_, index) => splitOf('o/r', `commit${index}`));
    const heldOut = splits.filter((split) => split === 'held-out').length;
    assert.ok(heldOut > 70 && heldOut < 130, `held-out ${heldOut} of 300`);
  });
});

describe('localization set: the committed instances', () => {
  const instances = loadInstances();

  test('at least 200 instances from at least 4 repositories in at least 3 languages', () => {
    assert.ok(instances.length >= 200, `${instances.length}`);
    const names = new Set(instances.map((instance) => instance.repository));
    assert.ok(names.size >= 4);
    assert.ok(new Set([...names].map((name) => repository(name).language)).size >= 3);
  });

  test('every instance follows the rules it was extracted by', () => {
    const commits = new Set<string>();
    for (const instance of instances) {
      const where = `${instance.repository}@${instance.commit}`;
      assert.match(instance.commit, /^[0-9a-f]{40}$/, where);
      assert.match(instance.parent, /^[0-9a-f]{40}$/, where);
      assert.ok(!commits.has(where), `duplicate ${where}`);
      commits.add(where);
      assert.ok(instance.query.trim().length > 0, where);
      assert.doesNotMatch(instance.query, /^diff --git /m, `${where} query holds a diff`);
      assert.ok(instance.answer.length >= 1 && instance.answer.length <= 5, where);
      for (const file of instance.answer) assert.ok(isSourceFile(file, repository(instance.repository)), `${where}: ${file}`);
      assert.equal(instance.split, splitOf(instance.repository, instance.commit), where);
    }
    const heldOut = instances.filter((instance) => instance.split === 'held-out').length;
    assert.ok(heldOut >= instances.length / 4 && heldOut <= instances.length / 2.5, `held-out ${heldOut} of ${instances.length}`);
  });
});

describe('localization set: the fresh check set (fresh-instances.json)', () => {
  const committed = loadInstances();
  const fresh = loadInstances(path.join(__dirname, '..', '..', '..', 'test', 'quality', 'localization', 'fresh-instances.json'));

  test('its repositories are outside the committed set and none of its commits is an instance there', () => {
    const committedNames = new Set(localizationRepositories.map((candidate) => candidate.name));
    for (const extra of extraRepositories) assert.ok(!committedNames.has(extra.name), extra.name);
    const committedCommits = new Set(committed.map((instance) => instance.commit));
    const extraNames = new Set(extraRepositories.map((candidate) => candidate.name));
    assert.ok(fresh.length >= 60, `${fresh.length}`);
    for (const instance of fresh) {
      const where = `${instance.repository}@${instance.commit}`;
      assert.ok(extraNames.has(instance.repository), where);
      assert.ok(!committedCommits.has(instance.commit), where);
      assert.equal(instance.split, 'tune', where);
      assert.ok(instance.answer.length >= 1 && instance.answer.length <= 5, where);
      for (const file of instance.answer) assert.ok(isSourceFile(file, repository(instance.repository)), `${where}: ${file}`);
    }
  });
});

describe('second code base queries (Hono)', () => {
  test('at least 30 error and 30 natural queries, a third of each held out, ids unique', () => {
    for (const kind of ['error', 'natural'] as const) {
      const queries = honoQueries.filter((query) => query.kind === kind);
      assert.ok(queries.length >= 30, `${kind} ${queries.length}`);
      const heldOut = queries.filter((query) => query.split === 'held-out').length;
      assert.equal(heldOut, Math.floor(queries.length / 3), kind);
    }
    assert.equal(new Set(honoQueries.map((query) => query.id)).size, honoQueries.length);
    for (const query of honoQueries) {
      for (const expected of query.expected) {
        assert.ok(expected.start !== undefined && expected.end !== undefined && expected.start <= expected.end, query.id);
      }
    }
  });
});

describe('third code base queries (jsoup)', () => {
  test('at least 30 natural questions, a third held out, ids unique, ranges in the source tree', () => {
    assert.ok(jsoupQueries.length >= 30, String(jsoupQueries.length));
    assert.ok(jsoupQueries.every((query) => query.kind === 'natural'));
    assert.equal(jsoupQueries.filter((query) => query.split === 'held-out').length, Math.floor(jsoupQueries.length / 3));
    assert.equal(new Set(jsoupQueries.map((query) => query.id)).size, jsoupQueries.length);
    for (const query of jsoupQueries)
      for (const expected of query.expected) {
        assert.ok(expected.path.startsWith('src/main/java/org/jsoup/') && expected.path.endsWith('.java'), query.id);
        assert.ok(expected.start !== undefined && expected.end !== undefined && expected.start <= expected.end, query.id);
      }
  });

  test("the corpus is pinned at the localization set's jsoup head", () => {
    assert.equal(jsoupCommit, repository('jhy/jsoup').head);
  });
});
