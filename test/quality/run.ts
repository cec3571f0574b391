/**
 * `npm run quality`: retrieval quality on a real codebase nobody here wrote (the pinned CPython
 * 3.11.2 `http`, `email`, `urllib`, `json`, `html`, `wsgiref` and `xmlrpc` packages, see
 * `corpus.ts`), lexical vs hybrid vs a plain grep baseline, per query kind.
 *
 *   node out/test/quality/run.js [--verbose] [--only ID_PREFIX] [--json FILE]
 *
 * Prints recall@1, recall@8, MRR, mean tokens returned per query and tokens per found answer.
 * The last line is one JSON object with every figure. It measures and prints; the exit code is
 * non-zero only when the corpus is missing or the run fails, never because a goal was missed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ProjectEngine } from '../../src/core/engine';
import { createStructuralParsers } from '../../src/core/parsing/structuralParsers';
import { nodePorts } from '../../src/core/ports';
import { prepareCorpus } from './corpus';
import { createGrepBaseline } from './grep';
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

function repositoryRoot(): string {
  for (const start of [__dirname, process.cwd()]) {
    for (let directory = start; ; directory = path.dirname(directory)) {
      if (fs.existsSync(path.join(directory, 'package.json')) && fs.existsSync(path.join(directory, 'grammars'))) return directory;
      if (path.dirname(directory) === directory) break;
    }
  }
  throw new Error('repository root not found (run from the repository)');
}

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

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const verbose = argv.includes('--verbose');
  const onlyIndex = argv.indexOf('--only');
  const only = onlyIndex >= 0 ? argv[onlyIndex + 1] : undefined;
  const jsonIndex = argv.indexOf('--json');
  const jsonFile = jsonIndex >= 0 ? argv[jsonIndex + 1] : undefined;
  const queries = qualityQueries.filter((query) => !only || query.id.startsWith(only));

  const corpus = prepareCorpus();
  const repo = repositoryRoot();
  const grammarDirectory = fs.existsSync(path.join(repo, 'dist', 'grammars', 'manifest.json')) ? path.join(repo, 'dist', 'grammars') : path.join(repo, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm');
  const queryDirectory = fs.existsSync(path.join(repo, 'dist', 'grammars', 'manifest.json')) ? path.join(repo, 'dist', 'grammars') : path.join(repo, 'grammars');
  const parsers = createStructuralParsers({ grammarDirectory, queryDirectory });
  console.log(`Corpus: ${corpus.files} Python files, ${corpus.lines} lines from ${corpus.source} (copied to ${corpus.root})`);
  console.log(`Queries: ${queries.length} (${kinds.map((kind) => `${kind} ${queries.filter((query) => query.kind === kind).length}`).join(', ')})`);

  const engine = await ProjectEngine.open({ root: corpus.root, ports: nodePorts(), parsers, options: { useGit: false, semantic: true } });
  try {
    const started = performance.now();
    const report = await engine.sync();
    const counts = engine.store.counts();
    const vectors = Number(engine.store.database.exec('SELECT COUNT(*) FROM derived_embeddings')[0]?.values[0]?.[0] ?? 0);
    console.log(`Indexed ${report.discovered} files (${counts.snippets} snippets, ${counts.symbols} symbols, ${vectors} vectors) in ${Math.round(performance.now() - started)} ms`);
    const grep = createGrepBaseline(corpus.root);
    console.log(`Grep baseline: ${grep.tool}`);

    const outcomes: Record<'lexical' | 'hybrid' | 'grep', Map<string, Outcome>> = { lexical: new Map(), hybrid: new Map(), grep: new Map() };
    for (const query of queries) {
      for (const mode of ['lexical', 'hybrid'] as const) {
        const before = performance.now();
        const retrieval = await engine.search(query.query, { semantic: mode === 'hybrid' });
        const ms = performance.now() - before;
        const results = retrieval.results;
        outcomes[mode].set(query.id, { rank: rankOf(results, query), tokens: results.reduce((sum, result) => sum + result.tokens, 0), results: results.length, ms });
        if (verbose) {
          const outcome = outcomes[mode].get(query.id) as Outcome;
          console.log(`${mode.padEnd(7)} ${query.id.padEnd(26)} rank ${String(outcome.rank ?? '-').padStart(2)}  ${outcome.tokens} tokens  ${query.query.split('\n').pop()?.slice(0, 70)}`);
          if (outcome.rank !== 1) for (const result of results) console.log(`          ${result.score.toFixed(2).padStart(7)} ${result.path}:${result.startLine}-${result.endLine} ${result.reason} ${result.symbol ?? ''}`);
        }
      }
      const before = performance.now();
      const windows = grep.search(query.query);
      outcomes.grep.set(query.id, { rank: rankOf(windows, query), tokens: windows.reduce((sum, window) => sum + window.tokens, 0), results: windows.length, ms: performance.now() - before });
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

    const misses = (mode: 'lexical' | 'hybrid' | 'grep') => queries.filter((query) => (outcomes[mode].get(query.id)?.rank ?? 99) > 8).map((query) => query.id);
    console.log('');
    console.log(`Missed by lexical: ${misses('lexical').join(', ') || 'none'}`);
    console.log(`Missed by hybrid:  ${misses('hybrid').join(', ') || 'none'}`);
    console.log(`Missed by grep:    ${misses('grep').join(', ') || 'none'}`);
    const exactKinds: QueryKind[] = ['symbol', 'path', 'error', 'phrase'];
    const goals = {
      exactRecallAt8: exactKinds.every((kind) => !summary[kind] || summary[kind].hybrid.recallAt8 >= 0.95),
      naturalRecallAt8Hybrid: !summary.natural || summary.natural.hybrid.recallAt8 >= 0.75,
      hybridNeverBelowLexicalOnExact: exactKinds.every((kind) => !summary[kind] || (summary[kind].hybrid.recallAt8 >= summary[kind].lexical.recallAt8 && summary[kind].hybrid.mrr >= summary[kind].lexical.mrr - 1e-9)),
      atLeastGrepRecall: summary.all.hybrid.recallAt8 >= summary.all.grep.recallAt8 && summary.all.lexical.recallAt8 >= summary.all.grep.recallAt8,
      thirdOfGrepTokensPerFound: (['lexical', 'hybrid'] as const).every((mode) => summary.all.grep.tokensPerFound !== null && summary.all[mode].tokensPerFound !== null && summary.all[mode].tokensPerFound * 3 <= summary.all.grep.tokensPerFound),
    };
    console.log(`Goals: ${Object.entries(goals).map(([goal, met]) => `${goal} ${met ? 'met' : 'MISSED'}`).join('; ')}`);
    const result = { corpus: { source: corpus.source, files: corpus.files, lines: corpus.lines }, grepTool: grep.tool, summary, goals, misses: { lexical: misses('lexical'), hybrid: misses('hybrid'), grep: misses('grep') } };
    if (jsonFile) fs.writeFileSync(jsonFile, JSON.stringify(result, null, 2));
    console.log(JSON.stringify(result));
  } finally {
    await engine.close();
    corpus.cleanup();
  }
}

// Retrieval quality first, then declaration recall/precision against each language's own parser.
main().then(() => runStructuralQuality()).catch((error: unknown) => {
  console.error(`quality: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
