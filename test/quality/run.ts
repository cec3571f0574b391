/**
 * `npm run quality`: retrieval quality on a real codebase nobody here wrote (the pinned CPython
 * 3.11.2 `http`, `email`, `urllib`, `json`, `html`, `wsgiref` and `xmlrpc` packages, see
 * `corpus.ts`), lexical vs hybrid vs a plain grep baseline, per query kind.
 *
 *   node out/test/quality/run.js [--verbose] [--only ID_PREFIX] [--json FILE] [--split tune|held-out|all]
 *       [--repos DIR] [--skip-localization] [--sets cpython,hono,jsoup,just,declarations]
 *
 * Then the error-message and natural-language queries on a second code base, Hono in TypeScript
 * (`honoQueries.ts`), natural questions on a third, jsoup in Java (`jsoupQueries.ts`),
 * natural questions on a fourth, just in Rust (`justQueries.ts`, a check set run in the tune split), the
 * declaration oracle, and the file-localization set on real fix commits (`localization/run.ts`).
 * Hono, jsoup and localization have a held-out third that runs only with `--split held-out` or
 * `--split all` (default tune); they skip with a message when the fetched repositories are absent
 * (`PK_LOCALIZATION_REPOS`, see localization/README.md).
 *
 * Prints recall@1, recall@8, MRR, mean tokens returned per query and tokens per found answer.
 * Each part ends with one JSON line holding its figures. It measures and prints; the exit code is
 * non-zero only when the corpus is missing or the run fails, never because a goal was missed.
 */
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { ProjectEngine } from '../../src/core/engine';
import { nodePorts } from '../../src/core/ports';
import { prepareCorpus } from './corpus';
import { createGrepBaseline, type GrepBaseline } from './grep';
import { honoCommit, honoRepository, jsoupCommit, jsoupRepository, justCommit, justRepository, preparePinnedCorpus } from './honoCorpus';
import { honoQueries } from './honoQueries';
import { jsoupQueries } from './jsoupQueries';
import { justQueries } from './justQueries';
import { defaultReposDirectory, localizationOptions, runLocalization, splitArgument } from './localization/run';
import { qualityParsers } from './parsers';
import { qualityQueries, type ExpectedLocation, type QualityQuery, type QueryKind } from './queries';
import { runStructuralQuality } from './structuralOracle';

interface Returned {
  path: string;
  startLine: number;
  endLine: number;
  tokens: number;
}

interface Outcome {
  rank: number | undefined;
  tokens: number;
  results: number;
  ms: number;
}

const kinds: QueryKind[] = ['symbol', 'path', 'error', 'phrase', 'natural'];

/** A returned range answers an expected one when they share at least half of the smaller of the two. */
export function answers(result: Returned, expected: ExpectedLocation): boolean {
  if (result.path !== expected.path) return false;
  if (expected.start === undefined || expected.end === undefined) return true;
  const overlap = Math.min(result.endLine, expected.end) - Math.max(result.startLine, expected.start) + 1;
  if (overlap <= 0) return false;
  const smaller = Math.min(result.endLine - result.startLine + 1, expected.end - expected.start + 1);
  return overlap * 2 >= smaller;
}

function rankOf(results: Returned[], query: QualityQuery): number | undefined {
  const index = results.findIndex((result) => query.expected.some((expected) => answers(result, expected)));
  return index < 0 ? undefined : index + 1;
}

interface Figures {
  queries: number;
  recallAt1: number;
  recallAt8: number;
  mrr: number;
  meanTokens: number;
  tokensPerFound: number | null;
  meanMs: number;
}

function figures(outcomes: Outcome[]): Figures {
  const n = outcomes.length;
  const found = outcomes.filter((outcome) => outcome.rank !== undefined && outcome.rank <= 8).length;
  const tokens = outcomes.reduce((sum, outcome) => sum + outcome.tokens, 0);
  const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;
  return {
    queries: n,
    recallAt1: round(outcomes.filter((outcome) => outcome.rank === 1).length / Math.max(1, n)),
    recallAt8: round(found / Math.max(1, n)),
    mrr: round(outcomes.reduce((sum, outcome) => sum + (outcome.rank && outcome.rank <= 8 ? 1 / outcome.rank : 0), 0) / Math.max(1, n)),
    meanTokens: Math.round(tokens / Math.max(1, n)),
    tokensPerFound: found > 0 ? Math.round(tokens / found) : null,
    meanMs: round(outcomes.reduce((sum, outcome) => sum + outcome.ms, 0) / Math.max(1, n), 2),
  };
}

function row(label: string, value: Figures): string {
  return `  ${label.padEnd(8)} n=${String(value.queries).padStart(2)}  R@1 ${value.recallAt1.toFixed(2)}  R@8 ${value.recallAt8.toFixed(2)}  MRR ${value.mrr.toFixed(2)}  tokens/query ${String(value.meanTokens).padStart(5)}  tokens/found ${String(value.tokensPerFound ?? '-').padStart(5)}  ${value.meanMs.toFixed(1)} ms`;
}

type Mode = 'lexical' | 'hybrid' | 'grep';

interface Measured {
  outcomes: Record<Mode, Map<string, Outcome>>;
  summary: Record<string, Record<string, Figures>>;
  misses: (mode: Mode) => string[];
}

/** Runs every query lexical, hybrid and through the grep baseline, and prints the figures per kind. */
async function measureQueries(engine: ProjectEngine, grep: GrepBaseline, queries: QualityQuery[], verbose: boolean): Promise<Measured> {
  const outcomes: Record<Mode, Map<string, Outcome>> = { lexical: new Map(), hybrid: new Map(), grep: new Map() };
  for (const query of queries) {
    for (const mode of ['lexical', 'hybrid'] as const) {
      const before = performance.now();
      const retrieval = await engine.search(query.query, { semantic: mode === 'hybrid' });
      const ms = performance.now() - before;
      const results = retrieval.results;
      outcomes[mode].set(query.id, {
        rank: rankOf(results, query),
        tokens: results.reduce((sum, result) => sum + result.tokens, 0),
        results: results.length,
        ms,
      });
      if (verbose) {
        const outcome = outcomes[mode].get(query.id) as Outcome;
        console.log(
          `${mode.padEnd(7)} ${query.id.padEnd(26)} rank ${String(outcome.rank ?? '-').padStart(2)}  ${outcome.tokens} tokens  ${query.query.split('\n').pop()?.slice(0, 70)}`,
        );
        if (outcome.rank !== 1)
          for (const result of results)
            console.log(
              `          ${result.score.toFixed(2).padStart(7)} ${result.path}:${result.startLine}-${result.endLine} ${result.reason} ${result.symbol ?? ''}`,
            );
      }
    }
    const before = performance.now();
    const windows = grep.search(query.query);
    outcomes.grep.set(query.id, {
      rank: rankOf(windows, query),
      tokens: windows.reduce((sum, window) => sum + window.tokens, 0),
      results: windows.length,
      ms: performance.now() - before,
    });
    if (verbose) {
      const outcome = outcomes.grep.get(query.id) as Outcome;
      console.log(`grep    ${query.id.padEnd(26)} rank ${String(outcome.rank ?? '-').padStart(2)}  ${outcome.tokens} tokens`);
    }
  }

  const summary: Record<string, Record<string, Figures>> = {};
  console.log('');
  for (const kind of [...kinds, 'all'] as const) {
    const ids = queries.filter((query) => kind === 'all' || query.kind === kind).map((query) => query.id);
    if (ids.length === 0) continue;
    console.log(`${kind}:`);
    summary[kind] = {};
    for (const mode of ['lexical', 'hybrid', 'grep'] as const) {
      const value = figures(ids.map((id) => outcomes[mode].get(id) as Outcome));
      summary[kind][mode] = value;
      console.log(row(mode, value));
    }
  }

  const misses = (mode: Mode) => queries.filter((query) => (outcomes[mode].get(query.id)?.rank ?? 99) > 8).map((query) => query.id);
  console.log('');
  console.log(`Missed by lexical: ${misses('lexical').join(', ') || 'none'}`);
  console.log(`Missed by hybrid:  ${misses('hybrid').join(', ') || 'none'}`);
  console.log(`Missed by grep:    ${misses('grep').join(', ') || 'none'}`);
  return { outcomes, summary, misses };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const verbose = argv.includes('--verbose');
  const onlyIndex = argv.indexOf('--only');
  const only = onlyIndex >= 0 ? argv[onlyIndex + 1] : undefined;
  const jsonIndex = argv.indexOf('--json');
  const jsonFile = jsonIndex >= 0 ? argv[jsonIndex + 1] : undefined;
  const queries = qualityQueries.filter((query) => !only || query.id.startsWith(only));

  const corpus = prepareCorpus();
  const parsers = qualityParsers();
  console.log(`Corpus: ${corpus.files} Python files, ${corpus.lines} lines from ${corpus.source} (copied to ${corpus.root})`);
  console.log(
    `Queries: ${queries.length} (${kinds.map((kind) => `${kind} ${queries.filter((query) => query.kind === kind).length}`).join(', ')})`,
  );

  const engine = await ProjectEngine.open({ root: corpus.root, ports: nodePorts(), parsers, options: { useGit: false, semantic: true } });
  try {
    const started = performance.now();
    const report = await engine.sync();
    const counts = engine.store.counts();
    const vectors = Number(engine.store.database.exec('SELECT COUNT(*) FROM derived_embeddings')[0]?.values[0]?.[0] ?? 0);
    console.log(
      `Indexed ${report.discovered} files (${counts.snippets} snippets, ${counts.symbols} symbols, ${vectors} vectors) in ${Math.round(performance.now() - started)} ms`,
    );
    const grep = createGrepBaseline(corpus.root);
    console.log(`Grep baseline: ${grep.tool}`);

    const { summary, misses } = await measureQueries(engine, grep, queries, verbose);
    const exactKinds: QueryKind[] = ['symbol', 'path', 'error', 'phrase'];
    const goals = {
      exactRecallAt8: exactKinds.every((kind) => !summary[kind] || summary[kind].hybrid.recallAt8 >= 0.95),
      naturalRecallAt8Hybrid: !summary.natural || summary.natural.hybrid.recallAt8 >= 0.75,
      hybridNeverBelowLexicalOnExact: exactKinds.every(
        (kind) =>
          !summary[kind] ||
          (summary[kind].hybrid.recallAt8 >= summary[kind].lexical.recallAt8 &&
            summary[kind].hybrid.mrr >= summary[kind].lexical.mrr - 1e-9),
      ),
      atLeastGrepRecall:
        summary.all.hybrid.recallAt8 >= summary.all.grep.recallAt8 && summary.all.lexical.recallAt8 >= summary.all.grep.recallAt8,
      thirdOfGrepTokensPerFound: (['lexical', 'hybrid'] as const).every(
        (mode) =>
          summary.all.grep.tokensPerFound !== null &&
          summary.all[mode].tokensPerFound !== null &&
          summary.all[mode].tokensPerFound * 3 <= summary.all.grep.tokensPerFound,
      ),
    };
    console.log(
      `Goals: ${Object.entries(goals)
        .map(([goal, met]) => `${goal} ${met ? 'met' : 'MISSED'}`)
        .join('; ')}`,
    );
    const result = {
      corpus: { source: corpus.source, files: corpus.files, lines: corpus.lines },
      grepTool: grep.tool,
      summary,
      goals,
      misses: { lexical: misses('lexical'), hybrid: misses('hybrid'), grep: misses('grep') },
    };
    if (jsonFile) fs.writeFileSync(jsonFile, JSON.stringify(result, null, 2));
    console.log(JSON.stringify(result));
  } finally {
    await engine.close();
    corpus.cleanup();
  }
}

/** A fetched repository at a pinned commit with its query set, measured the same way as the CPython set. */
interface PinnedSet {
  /** The key of its figures in the JSON line, and the `--sets` name. */
  key: 'hono' | 'jsoup' | 'just';
  title: string;
  repository: string;
  commit: string;
  queries: QualityQuery[];
}

const pinnedSets: PinnedSet[] = [
  { key: 'hono', title: 'Hono (TypeScript)', repository: honoRepository, commit: honoCommit, queries: honoQueries },
  { key: 'jsoup', title: 'jsoup (Java)', repository: jsoupRepository, commit: jsoupCommit, queries: jsoupQueries },
  { key: 'just', title: 'just (Rust)', repository: justRepository, commit: justCommit, queries: justQueries },
];

/**
 * The second and third code bases: error messages and natural questions on Hono, natural questions
 * on jsoup. Held-out queries run only with `--split held-out` or `--split all`, like the
 * localization set.
 */
async function runPinnedSet(set: PinnedSet, argv: string[]): Promise<void> {
  const split = splitArgument(argv);
  const verbose = argv.includes('--verbose');
  const reposIndex = argv.indexOf('--repos');
  const reposDirectory = reposIndex >= 0 ? argv[reposIndex + 1] : defaultReposDirectory();
  const onlyIndex = argv.indexOf('--only');
  const only = onlyIndex >= 0 ? argv[onlyIndex + 1] : undefined;
  const corpus = preparePinnedCorpus(reposDirectory, set.repository, set.commit);
  if (typeof corpus === 'string') {
    console.log(`\n${set.title} skipped: ${corpus}; see test/quality/localization/README.md to fetch it.`);
    return;
  }
  try {
    const options = { useGit: true, semantic: true };
    const engine = await ProjectEngine.open({ root: corpus.root, ports: nodePorts(), parsers: qualityParsers(), options });
    try {
      const started = performance.now();
      const report = await engine.sync();
      const grep = createGrepBaseline(corpus.root);
      const result: Record<string, Record<string, Record<string, Figures>>> = {};
      const splits = split === 'all' ? (['tune', 'held-out'] as const) : ([split] as const);
      const indexMs = Math.round(performance.now() - started);
      const where = `${set.title} at ${set.commit.slice(0, 12)}, ${corpus.files} files`;
      console.log(`\nCode base: ${where} (${report.discovered} indexed in ${indexMs} ms)`);
      for (const part of splits) {
        const queries = set.queries.filter((query) => (query.split ?? 'tune') === part && (!only || query.id.startsWith(only)));
        const perKind = kinds
          .map((kind) => `${kind} ${queries.filter((query) => query.kind === kind).length}`)
          .filter((text) => !text.endsWith(' 0'));
        console.log(`\n${set.title} ${part}: ${queries.length} queries (${perKind.join(', ')})`);
        result[part] = (await measureQueries(engine, grep, queries, verbose)).summary;
      }
      console.log(JSON.stringify({ [set.key]: { commit: set.commit, grepTool: grep.tool, summary: result } }));
    } finally {
      await engine.close();
    }
  } finally {
    corpus.cleanup();
  }
}

/** `--sets cpython,hono,jsoup,just,declarations` runs only those parts (all of them by default; localization has its own flag). */
function selectedSets(argv: string[]): Set<string> {
  const index = argv.indexOf('--sets');
  const all = ['cpython', 'hono', 'jsoup', 'just', 'declarations'];
  if (index < 0) return new Set(all);
  const named = (argv[index + 1] ?? '').split(',').filter(Boolean);
  const unknown = named.filter((name) => !all.includes(name));
  if (unknown.length > 0 || named.length === 0) throw new Error(`--sets takes a comma-separated list of ${all.join(', ')}`);
  return new Set(named);
}

async function runSelected(argv: string[]): Promise<void> {
  const sets = selectedSets(argv);
  if (sets.has('cpython')) await main();
  for (const set of pinnedSets) if (sets.has(set.key)) await runPinnedSet(set, argv);
  if (sets.has('declarations')) await runStructuralQuality();
  if (!argv.includes('--skip-localization')) await runLocalization(localizationOptions(argv));
}

// CPython queries, the Hono and jsoup queries, declaration recall/precision against each language's own parser, then file localization.
runSelected(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`quality: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
