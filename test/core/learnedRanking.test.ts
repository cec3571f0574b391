import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { describe, test } from 'node:test';
import { featureNames } from '../../src/core/curation/features';
import { curationLogPathFor, rankerPathFor } from '../../src/core/curation/log';
import { evaluatePromotion, withPromotion, type GateOptions } from '../../src/core/curation/promotion';
import { parseModel, serializeModel, splitLabels, trainModel, uniqueLabels, writeModel } from '../../src/core/curation/ranker';
import type { LabelRecord } from '../../src/core/curation/state';
import type { RankingMode } from '../../src/core/curation/ranker';
import { sha256Hex } from '../../src/core/hashing';
import { Random } from '../bench/random';
import { fixtureFactory, openEngine, structuralParsers, tempFile } from './fixtures';

const fixture = fixtureFactory();

/** A clock that moves 0.01 ms per reading: latency figures without wall time. */
function steppingClock(step = 0.01): GateOptions['now'] {
  let now = 0;
  return () => (now += step);
}

const gate = (now = steppingClock()): GateOptions => ({ maxLatencyMs: 10, minimumHeldOutQueries: 2, now });

const f = Object.fromEntries(featureNames.map((name, index) => [name, index])) as Record<(typeof featureNames)[number], number>;

/**
 * A synthetic feedback set: per request one exact match (useful) and five full-text candidates,
 * two of them useful. The static score barely tells the useful full-text ones apart (it is
 * slightly lower for them); their prior outcome and symbol relation do. `poisoned` labels the
 * exact matches not useful, as a careless or hostile labeler might.
 */
function syntheticLabels(seed: number, queries: number, poisoned = false): LabelRecord[] {
  const random = new Random(seed);
  const labels: LabelRecord[] = [];
  for (let request = 0; request < queries; request++) {
    const query = sha256Hex(`query ${seed} ${request}`);
    for (let slot = 0; slot < 6; slot++) {
      const exact = slot === 0;
      const useful = exact || slot <= 2;
      const features = new Array<number>(featureNames.length).fill(0);
      features[f.static] = exact ? 0.9 + random.next() * 0.05 : useful ? 0.2 + random.next() * 0.1 : 0.25 + random.next() * 0.1;
      features[f['exact-match']] = exact ? 1 : 0;
      features[f['full-text']] = exact ? 0 : 0.3 + random.next() * 0.4;
      features[f.recency] = random.next();
      features[f['symbol-relation']] = exact ? 1 : useful ? 0.5 : random.chance(0.3) ? 0.5 : 0;
      features[f['token-cost']] = random.next() * 0.3;
      features[f['prior-outcome']] = useful ? 0.65 + random.next() * 0.3 : 0.1 + random.next() * 0.3;
      labels.push({
        id: `lab-${(request * 6 + slot).toString(16).padStart(12, '0')}`,
        at: new Date(Date.UTC(2026, 0, 1, 0, 0, request * 6 + slot)).toISOString(),
        label: useful && !(exact && poisoned) ? 'useful' : 'not-useful',
        source: 'manifest',
        candidate: sha256Hex(`candidate ${seed} ${request} ${slot}`),
        query,
        features: features.map((value) => Math.round(value * 1e6) / 1e6),
      });
    }
  }
  return labels;
}

describe('the learned ranker and its promotion gate (issue 19)', () => {
  test('the gate accepts a model that helps and refuses one that drops an exact match', () => {
    const honest = splitLabels(uniqueLabels(syntheticLabels(7, 40)));
    assert.ok(honest.heldOut.length >= 2 * 6, 'held-out requests exist');
    const helpful = trainModel(honest.training, honest.heldOut);
    const accepted = evaluatePromotion(helpful, honest.heldOut, gate());
    assert.equal(accepted.passed, true, accepted.reasons.join('; '));
    assert.ok(accepted.modelQuality > accepted.staticQuality, `${accepted.modelQuality} > ${accepted.staticQuality}`);
    assert.equal(accepted.modelExactRecall, 1);
    assert.equal(accepted.repeatable, true);

    // Trained on labels that call exact matches not useful, the model learns to push them out of the top five.
    const poisoned = splitLabels(uniqueLabels(syntheticLabels(7, 40, true)));
    const harmful = trainModel(poisoned.training, poisoned.heldOut);
    assert.ok(harmful.weights[f['exact-match']] < 0, 'the poisoned model weighs exact matches down');
    const refused = evaluatePromotion(harmful, honest.heldOut, gate());
    assert.equal(refused.passed, false);
    assert.ok(refused.modelExactRecall < refused.staticExactRecall);
    assert.ok(
      refused.reasons.some((reason) => reason.startsWith('exact-match recall drops')),
      refused.reasons.join('; '),
    );
  });

  test('the gate refuses a model whose inference is over 10 ms at p95, and one with too few held-out requests', () => {
    const honest = splitLabels(uniqueLabels(syntheticLabels(11, 40)));
    const model = trainModel(honest.training, honest.heldOut);
    const slow = evaluatePromotion(model, honest.heldOut, gate(steppingClock(25)));
    assert.ok(
      slow.reasons.some((reason) => reason.startsWith('p95 latency')),
      slow.reasons.join('; '),
    );
    const few = evaluatePromotion(model, honest.heldOut.slice(0, 6), gate());
    assert.ok(
      few.reasons.some((reason) => reason.includes('held-out requests')),
      few.reasons.join('; '),
    );
  });

  test('the same labels train the same model byte for byte, in any input order', () => {
    const labels = syntheticLabels(3, 32);
    const shuffled = [...labels].reverse();
    const once = splitLabels(uniqueLabels(labels));
    const twice = splitLabels(uniqueLabels(shuffled));
    const first = serializeModel(trainModel(once.training, once.heldOut));
    const second = serializeModel(trainModel(twice.training, twice.heldOut));
    assert.equal(first, second);
    const other = splitLabels(uniqueLabels(syntheticLabels(4, 32)));
    assert.notEqual(serializeModel(trainModel(other.training, other.heldOut)), first, 'other labels give another model');
    const parsed = parseModel(first);
    assert.ok(parsed.ok);
    assert.equal(serializeModel(parsed.model), first);
  });

  test('a tampered artifact is corrupt; too few labels or one class only is refused', () => {
    const labels = splitLabels(uniqueLabels(syntheticLabels(5, 24)));
    const text = serializeModel(trainModel(labels.training, labels.heldOut));
    const tampered = text.replace(/"bias": (-?[\d.]+)/, (_, bias: string) => `"bias": ${Number(bias) + 0.5}`);
    assert.notEqual(tampered, text);
    assert.deepEqual(parseModel(tampered), { ok: false, reason: 'corrupt', detail: 'checksum mismatch' });
    assert.equal(parseModel('{').ok, false);
    assert.throws(() => trainModel(labels.training.slice(0, 10), []), /at least 20 labels/);
    const useful = labels.training.filter((label) => label.label === 'useful');
    assert.throws(() => trainModel(useful, []), /both useful and not-useful/);
  });
});

const sources: Record<string, string> = {
  'src/exporter.ts': 'export function exportPackage(mode: string): string {\n  return mode;\n}\n',
  'src/archive.ts': 'export function packageArchive(files: string[]): string {\n  // package export archive\n  return files.join();\n}\n',
  'src/notes.md': '# Package export\nHow a package export is written.\n',
  'src/util.ts': 'export const exportNames = ["package", "export"];\n',
};

async function rankingEngine(mode: RankingMode, db: string, root: string) {
  return openEngine(root, { dbPath: db, parsers: structuralParsers(), curation: { rankingMode: mode } });
}

describe('learned ranking in retrieval', () => {
  test('labels record the bounded feature vector and hashed identities only', async () => {
    const project = fixture(sources);
    const db = tempFile('labels.sqlite');
    const engine = await rankingEngine('off', db, project.root);
    await engine.sync();
    await engine.search('package export');
    const { ids } = await engine.curate('label', { query: 'package export', label: 'not-useful', source: 'manifest' });
    assert.ok(ids.length >= 2);
    const again = await engine.curate('label', { query: 'package export', label: 'not-useful', source: 'manifest' });
    assert.deepEqual(again.ids, ids, 'the same label on the same answer returns the existing ids');
    await assert.rejects(engine.curate('label', { query: 'never asked', label: 'useful', source: 'chat' }), /recent answer/);
    const lines = fs.readFileSync(curationLogPathFor(db), 'utf8').trim().split('\n');
    assert.equal(lines.length, ids.length);
    for (const line of lines) {
      const label = JSON.parse(line) as { features: number[]; candidate: string; query: string };
      assert.equal(label.features.length, featureNames.length);
      assert.ok(label.features.every((value) => value >= 0 && value <= 1));
      assert.match(label.candidate, /^[0-9a-f]{64}$/);
      for (const word of ['package', 'export', 'src/', 'exporter']) assert.ok(!line.includes(word), `${word} is not in a label`);
    }
    const health = await engine.curate('health', {});
    assert.deepEqual(health.labels, { useful: 0, notUseful: ids.length, malformed: 0, ignored: 0 });
    await engine.close();
  });

  test('a missing, corrupt or unpromoted model leaves the static ranking; shadow only counts disagreement', async () => {
    const project = fixture(sources);
    const db = tempFile('fallback.sqlite');
    const off = await rankingEngine('off', db, project.root);
    await off.sync();
    const staticOrder = (await off.search('package export')).results.map((result) => result.id);
    assert.ok(staticOrder.length >= 3);
    await off.close();
    const modelPath = rankerPathFor(curationLogPathFor(db));
    const order = async (mode: RankingMode) => {
      const engine = await rankingEngine(mode, db, project.root);
      const retrieval = await engine.search('package export');
      const health = await engine.curate('health', {});
      await engine.close();
      return { ids: retrieval.results.map((result) => result.id), learned: retrieval.manifest.learned, health };
    };

    const missing = await order('active');
    assert.deepEqual(missing.ids, staticOrder);
    assert.equal(missing.learned?.applied, false);
    assert.match(missing.learned?.fallback ?? '', /missing/);

    fs.writeFileSync(modelPath, '{"schema": 1, "weights": [');
    const corrupt = await order('active');
    assert.deepEqual(corrupt.ids, staticOrder);
    assert.match(corrupt.learned?.fallback ?? '', /corrupt/);
    assert.equal(corrupt.health.model.state, 'corrupt');

    // A model that reverses the static order, with a failed promotion report: active refuses it, shadow measures it.
    const labels = splitLabels(uniqueLabels(syntheticLabels(9, 24)));
    const trained = trainModel(labels.training, labels.heldOut);
    const reversing = { ...trained, weights: trained.weights.map((_, index) => (index === f.static ? -4 : 0)) };
    const failed = { ...evaluatePromotion(trained, labels.heldOut, gate()), passed: false, reasons: ['quality does not improve'] };
    writeModel(modelPath, withPromotion(reversing, failed));
    const unpromoted = await order('active');
    assert.deepEqual(unpromoted.ids, staticOrder);
    assert.match(unpromoted.learned?.fallback ?? '', /not promoted/);
    const shadow = await order('shadow');
    assert.deepEqual(shadow.ids, staticOrder, 'shadow never changes the answer');
    assert.equal(shadow.health.shadow.requests, 1);
    assert.ok(shadow.health.shadow.pairwiseDisagreements > 0);

    // Promoted, the same model reorders only the non-exact candidates.
    const passing = { ...failed, passed: true, reasons: [] };
    writeModel(modelPath, withPromotion(reversing, passing));
    const active = await order('active');
    assert.equal(active.learned?.applied, true);
    assert.deepEqual([...active.ids].sort(), [...staticOrder].sort());
    assert.notDeepEqual(active.ids, staticOrder);
  });

  test('an exact match keeps its place whatever the active model says', async () => {
    const project = fixture(sources);
    const db = tempFile('exact.sqlite');
    const labels = splitLabels(uniqueLabels(syntheticLabels(9, 24)));
    const trained = trainModel(labels.training, labels.heldOut);
    const hostile = { ...trained, weights: trained.weights.map((_, index) => (index === f['exact-match'] ? -4 : 0)) };
    const report = { ...evaluatePromotion(trained, labels.heldOut, gate()), passed: true, reasons: [] };
    writeModel(rankerPathFor(curationLogPathFor(db)), withPromotion(hostile, report));
    const engine = await rankingEngine('active', db, project.root);
    await engine.sync();
    const retrieval = await engine.search('exportPackage package export');
    assert.equal(retrieval.manifest.learned?.applied, true);
    assert.ok(retrieval.results.length >= 2, 'a non-exact candidate the model would rather put first');
    assert.equal(retrieval.results[0].symbol, 'exportPackage');
    assert.equal(retrieval.results[0].reason, 'exact-symbol');
    await engine.close();
  });
});

describe('Train Ranker from labels recorded on real answers', () => {
  test('trains from the log, writes the artifact with mode 0600 and its gate report, and the same log gives the same model', async () => {
    const files: Record<string, string> = {};
    const topics = [
      'alpha',
      'bravo',
      'charlie',
      'delta',
      'echo',
      'foxtrot',
      'golf',
      'hotel',
      'india',
      'juliet',
      'kilo',
      'lima',
      'mike',
      'november',
      'oscar',
      'papa',
    ];
    for (const topic of topics) {
      files[`src/${topic}.ts`] =
        `export function ${topic}Handler(input: string): string {\n  return 'handled ${topic} request ' + input;\n}\n`;
      files[`docs/${topic}.md`] = `# ${topic} request\nThe ${topic} request is handled by the handler.\n`;
      files[`src/${topic}Util.ts`] = `export const ${topic}Names = ['${topic}', 'request', 'handler'];\n`;
    }
    const project = fixture(files);
    const db = tempFile('train.sqlite');
    const engine = await rankingEngine('off', db, project.root);
    await engine.sync();
    for (const topic of topics) {
      const query = `${topic} request handler`;
      const retrieval = await engine.search(query);
      const [best, ...rest] = retrieval.results;
      assert.ok(best && rest.length >= 1, `${query} has several candidates`);
      await engine.curate('label', { query, label: 'useful', source: 'cli', snippetIds: [best.id] });
      await engine.curate('label', { query, label: 'not-useful', source: 'cli', snippetIds: rest.map((result) => result.id) });
    }
    const trained = await engine.curate('train', {});
    assert.ok(trained.labels >= 20, String(trained.labels));
    assert.equal(trained.promotion.heldOutQueries, 4, 'every fourth of the sixteen requests is held out');
    assert.ok(trained.modelPath && fs.existsSync(trained.modelPath));
    if (process.platform !== 'win32') assert.equal(fs.statSync(trained.modelPath).mode & 0o777, 0o600);
    const loaded = parseModel(fs.readFileSync(trained.modelPath, 'utf8'));
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.model.promotion?.passed, trained.promotion.passed);
    const health = await engine.curate('health', {});
    assert.equal(health.model.modelId, trained.modelId);
    assert.equal(health.model.state, trained.promotion.passed ? 'promoted' : 'trained');
    const again = await engine.curate('train', {});
    assert.equal(again.modelId, trained.modelId, 'the same labels train the same weights');
    await engine.close();
  });
});
