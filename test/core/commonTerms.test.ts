import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fullTextTerms, termStatistics } from '../../src/core/retrieval/candidates';
import type { ProjectEngine } from '../../src/core/engine';
import { fixtureFactory, openEngine } from './fixtures';

const project = fixtureFactory();

/** FTS4's own per-column chunk counts of every word (`fts4aux`), as `term → [body, path, idents]`. */
function indexCounts(engine: ProjectEngine): Map<string, number[]> {
  const db = engine.store.database;
  db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.test_terms USING fts4aux(main, search_index)');
  const counts = new Map<string, number[]>();
  for (const [term, column, documents] of db.exec("SELECT term, col, documents FROM temp.test_terms WHERE col <> '*'")[0]?.values ?? []) {
    const perColumn = counts.get(term as string) ?? [0, 0, 0];
    perColumn[Number(column)] = documents as number;
    counts.set(term as string, perColumn);
  }
  return counts;
}

function files(): Record<string, string> {
  const result: Record<string, string> = {};
  for (let index = 1; index <= 12; index++) {
    result[`src/ledger_${index % 3}/entry${index}.py`] =
      `def post_entry_${index}(ledger):\n    """Posts quokka entries to the ledger."""\n    return ledger.post(${index})\n${index % 4 === 0 ? '\n\nclass QuokkaAudit:\n    def audit(self):\n        return "quokka audit ledger"\n' : ''}`;
  }
  return result;
}

describe('common word counts', () => {
  test('a cold sync builds them, keeping only words in at least the floor of chunks', async () => {
    const engine = await openEngine(project(files()).root);
    await engine.sync();
    assert.equal(engine.store.search.commonTermsStale, false);
    const truth = indexCounts(engine);
    engine.store.search.refreshCommonTerms(10);
    const stored = engine.store.search.commonTermCounts([...truth.keys()]);
    for (const [term, perColumn] of truth) {
      const inAny = engine.store.database.exec("SELECT documents FROM temp.test_terms WHERE term = ? AND col = '*'", [term])[0]
        .values[0][0] as number;
      if (inAny >= 10) assert.deepEqual(stored.get(term), perColumn, term);
      else assert.equal(stored.has(term), false, `${term} is in ${inAny} chunks, under the floor`);
    }
    assert.ok(stored.has('ledger') && stored.has('quokka'));
    await engine.close();
  });

  test("they stay equal to FTS4's own counts as files are added, changed and deleted", async () => {
    const fixture = project(files());
    const engine = await openEngine(fixture.root);
    await engine.sync();
    // Floor 1: every word is common, so every row written or deleted adjusts counts.
    engine.store.search.refreshCommonTerms(1);
    const built = [...indexCounts(engine).keys()];
    const agree = (label: string) => {
      const truth = indexCounts(engine);
      const stored = engine.store.search.commonTermCounts([...new Set([...built, ...truth.keys(), 'neverseen'])]);
      // Every word of the build is still counted, exactly (0 where it is gone); words new since the build are not (they are counted on demand).
      assert.deepEqual([...stored.keys()].sort(), [...built].sort(), label);
      for (const [term, perColumn] of stored) assert.deepEqual(perColumn, truth.get(term) ?? [0, 0, 0], `${label}: ${term}`);
    };
    agree('after the build');
    fixture.write('src/ledger_1/entry1.py', 'def post_entry_1(ledger):\n    return ledger.void(1)\n');
    fixture.write('src/extra/wombat.py', 'def wombat_ledger():\n    """quokka quokka"""\n    return 0\n');
    fixture.remove('src/ledger_0/entry3.py');
    fixture.remove('src/ledger_0/entry12.py');
    await engine.sync();
    assert.equal(engine.store.search.commonTermsStale, false, 'a small sync keeps the counts instead of rebuilding them');
    agree('after a change, an addition and two deletions');
    const statistics = termStatistics(engine.store, fullTextTerms(['quokka', 'ledger']));
    const truth = indexCounts(engine);
    assert.deepEqual(statistics.termDocuments.get('"quokka"'), truth.get('quokka'));
    assert.deepEqual(statistics.termDocuments.get('"ledger"'), truth.get('ledger'));
    assert.equal(statistics.documents, engine.store.search.documentCount());
    await engine.close();
  });

  test('a change of a third of the files keeps them, exact, without a rebuild', async () => {
    const many: Record<string, string> = {};
    for (let index = 1; index <= 60; index++)
      many[`src/ledger_${index % 5}/entry${index}.py`] =
        `def post_entry_${index}(ledger):\n    """Posts wombat entries to ledger ${index % 7}."""\n    return ledger.post(${index})\n`;
    const fixture = project(many);
    const engine = await openEngine(fixture.root);
    await engine.sync();
    engine.store.search.refreshCommonTerms(1);
    const built = [...indexCounts(engine).keys()];
    for (let index = 1; index <= 20; index++)
      fixture.write(`src/ledger_${index % 5}/entry${index}.py`, `def void_entry_${index}(ledger):\n    return ledger.void(${index % 3})\n`);
    await engine.sync();
    // A rebuild would have used the default floor, under which no word of this project is common.
    assert.equal(engine.store.search.commonTermsStale, false);
    const truth = indexCounts(engine);
    const stored = engine.store.search.commonTermCounts(built);
    assert.deepEqual([...stored.keys()].sort(), [...built].sort(), 'kept, not rebuilt');
    for (const [term, perColumn] of stored) assert.deepEqual(perColumn, truth.get(term) ?? [0, 0, 0], term);
    await engine.close();
  });

  test('counts stay exact for rows with accents, other scripts, digits and punctuation', async () => {
    const fixture = project(files());
    const engine = await openEngine(fixture.root);
    await engine.sync();
    engine.store.search.refreshCommonTerms(1);
    const built = [...indexCounts(engine).keys()];
    fixture.write(
      'src/extra/intl.py',
      'def café_entry():\n    """Ärger über Straße, ДАННЫЕ данные, 東京 Éledger"""\n    return "ÉCOLE école"\n',
    );
    fixture.write('src/extra/ascii.py', 'def $odd_Name2x(a-b, c.d, e__f):\n    return ledger_2 + LEDGER + 3.14e10 + x_y_Z\n');
    fixture.remove('src/ledger_0/entry3.py');
    await engine.sync();
    assert.equal(engine.store.search.commonTermsStale, false);
    const truth = indexCounts(engine);
    const stored = engine.store.search.commonTermCounts(built);
    // The tokenizer folds case and drops accents: `Éledger` is one word, `eledger`, not `ledger`.
    assert.ok(truth.has('eledger') && truth.has('данные') && truth.has('arger'), 'the new rows are indexed');
    for (const [term, perColumn] of stored) assert.deepEqual(perColumn, truth.get(term) ?? [0, 0, 0], term);
    await engine.close();
  });
});
