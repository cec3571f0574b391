/**
 * File localization on real fix commits (`instances.json`, built by `extract.ts`): for each
 * instance the work tree is checked out at the fix's parent, the engine syncs incrementally
 * (instances run repository by repository in commit order, so only the files that changed since
 * the previous instance are re-read), and pk's search with the commit message as the query is
 * mapped to files in rank order. A plain BM25 over the whole source files of the same checkout
 * runs beside it.
 *
 *   node out/test/quality/localization/run.js [--split tune|held-out|all] [--repos DIR]
 *       [--repo OWNER/NAME] [--max-per-repo N] [--verbose] [--localization-json FILE] [--files]
 *       [--instances FILE]
 *
 * The repositories are expected as clones with full history under `PK_LOCALIZATION_REPOS`
 * (default `/work/eval-repos`), one per repository named `owner+name`; see README.md here.
 * Missing repositories are skipped with a message and exit code 0. The default split is tune:
 * held-out runs only when asked for, so whoever tunes the ranking never sees it by accident.
 * Each run checks out into its own temporary `git worktree` of the clone and removes it at the
 * end, so the clones are never changed and concurrent runs do not disturb each other.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ProjectEngine } from '../../../src/core/engine';
import { nodePorts } from '../../../src/core/ports';
import { qualityParsers } from '../parsers';
import { bm25Document, bm25Rank, type Bm25Document } from './bm25';
import type { LocalizationInstance, Split } from './extract';
import { allRepositories, workTreeName, type LocalizationRepository } from './repositories';

export type SplitChoice = Split | 'all';

export interface LocalizationOptions {
  split: SplitChoice;
  reposDirectory: string;
  repository?: string;
  maxPerRepository?: number;
  verbose?: boolean;
  jsonFile?: string;
  /** Instances from this file instead of the committed `instances.json`. */
  instancesFile?: string;
  /** `files` ranks with the engine's file-level answer (`granularity: 'files'`) instead of snippets mapped to files. */
  granularity?: 'snippets' | 'files';
}

/** Files a ranking lists, best first; `rank` is the 1-based position of the first answer file. */
export interface RankedOutcome {
  rank: number | undefined;
  allWithin10: boolean;
  files: number;
  tokens: number;
}

export interface InstanceOutcome {
  repository: string;
  commit: string;
  split: Split;
  answer: string[];
  pk: RankedOutcome;
  bm25: RankedOutcome;
  /**
   * Whether the index holds at least one answer file. A file the engine excludes (secret-looking
   * content, size, binary) can never be pk's answer, whatever the ranking: Gitleaks' rule files
   * hold sample keys and are excluded as secret content.
   */
  answerIndexed: boolean;
  syncMs: number;
  searchMs: number;
  /** pk's and BM25's first 20 files, for reading the misses in `--localization-json`. */
  pkTop: string[];
  bm25Top: string[];
}

export interface LocalizationFigures {
  instances: number;
  accAt1: number;
  accAt5: number;
  accAt10: number;
  mrr: number;
  /** Every answer file of the instance within the first ten files. */
  allAt10: number;
  /** An answer file anywhere in the list (pk: 50 snippets; BM25: first 50 files). */
  found: number;
  meanFiles: number;
  meanTokens: number;
}

/** pk's `--limit 50`, the same request `pk search --limit 50` makes. */
const searchLimit = 50;
const bm25Depth = 50;

export function defaultReposDirectory(): string {
  return process.env.PK_LOCALIZATION_REPOS ?? '/work/eval-repos';
}

/** The committed instances, or those of `file` (an extra tuning set made by `extract.ts --beyond-set`). */
export function loadInstances(file = path.join(sourceDirectory(), 'instances.json')): LocalizationInstance[] {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as LocalizationInstance[];
}

/** The directory of this file's TypeScript source (the JSON is not copied into `out/`). */
function sourceDirectory(): string {
  for (let directory = __dirname; ; directory = path.dirname(directory)) {
    const candidate = path.join(directory, 'test', 'quality', 'localization');
    if (fs.existsSync(path.join(candidate, 'instances.json'))) return candidate;
    if (path.dirname(directory) === directory) throw new Error('test/quality/localization/instances.json not found');
  }
}

export function rankedOutcome(files: string[], answer: string[], tokens: number): RankedOutcome {
  const wanted = new Set(answer);
  const index = files.findIndex((file) => wanted.has(file));
  const top10 = new Set(files.slice(0, 10));
  return { rank: index < 0 ? undefined : index + 1, allWithin10: answer.every((file) => top10.has(file)), files: files.length, tokens };
}

export function localizationFigures(outcomes: RankedOutcome[]): LocalizationFigures {
  const n = Math.max(1, outcomes.length);
  const share = (test: (outcome: RankedOutcome) => boolean) => Math.round((outcomes.filter(test).length / n) * 1000) / 10;
  const within = (k: number) => share((outcome) => outcome.rank !== undefined && outcome.rank <= k);
  return {
    instances: outcomes.length,
    accAt1: within(1),
    accAt5: within(5),
    accAt10: within(10),
    mrr: Math.round((outcomes.reduce((sum, outcome) => sum + (outcome.rank ? 1 / outcome.rank : 0), 0) / n) * 1000) / 1000,
    allAt10: share((outcome) => outcome.allWithin10),
    found: share((outcome) => outcome.rank !== undefined),
    meanFiles: Math.round((outcomes.reduce((sum, outcome) => sum + outcome.files, 0) / n) * 10) / 10,
    meanTokens: Math.round(outcomes.reduce((sum, outcome) => sum + outcome.tokens, 0) / n),
  };
}

function git(workTree: string, args: string[]): string {
  return execFileSync('git', args, { cwd: workTree, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

function hasCommit(workTree: string, commit: string): boolean {
  try {
    git(workTree, ['cat-file', '-e', `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** BM25 documents of the checkout's tracked source files (tests included, as a search over the tree would see them), cached by blob. */
class SourceDocuments {
  private readonly byBlob = new Map<string, Bm25Document>();

  constructor(
    private readonly workTree: string,
    private readonly repository: LocalizationRepository,
  ) {}

  current(): Map<string, Bm25Document> {
    const documents = new Map<string, Bm25Document>();
    for (const entry of git(this.workTree, ['ls-files', '-s', '-z']).split('\u0000')) {
      const match = entry.match(/^\d+ ([0-9a-f]+) \d\t(.+)$/s);
      if (!match) continue;
      const [, blob, file] = match;
      if (!this.repository.sourceExtensions.some((extension) => file.endsWith(extension))) continue;
      let document = this.byBlob.get(blob);
      if (!document) {
        const absolute = path.join(this.workTree, file);
        if (!fs.existsSync(absolute) || !fs.statSync(absolute).isFile()) continue;
        document = bm25Document(fs.readFileSync(absolute, 'utf8'));
        this.byBlob.set(blob, document);
      }
      documents.set(file, document);
    }
    return documents;
  }
}

function checkout(workTree: string, commit: string): void {
  git(workTree, ['-c', 'advice.detachedHead=false', 'checkout', '-q', '-f', '--detach', commit]);
  // Files left untracked by the previous checkout would otherwise be indexed (pk lists untracked, non-ignored files too).
  git(workTree, ['clean', '-fdq']);
}

async function runRepository(
  repository: LocalizationRepository,
  clone: string,
  instances: LocalizationInstance[],
  verbose: boolean,
  granularity: 'snippets' | 'files' = 'snippets',
): Promise<InstanceOutcome[]> {
  // A private work tree per run: the clone is never checked out, and two runs (two helpers) can share it.
  git(clone, ['worktree', 'prune']);
  const workTree = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `pk-localization-${workTreeName(repository.name)}-`)));
  git(clone, ['worktree', 'add', '-q', '--detach', '-f', workTree, instances[0].parent]);
  const outcomes: InstanceOutcome[] = [];
  let engine: ProjectEngine | undefined;
  try {
    engine = await ProjectEngine.open({ root: workTree, ports: nodePorts(), parsers: qualityParsers(), options: { useGit: true } });
    const documents = new SourceDocuments(workTree, repository);
    for (const instance of instances) {
      checkout(workTree, instance.parent);
      const syncStarted = performance.now();
      await engine.sync();
      const syncMs = performance.now() - syncStarted;
      const searchStarted = performance.now();
      const retrieval = await engine.search(instance.query, { limit: searchLimit, granularity });
      const searchMs = performance.now() - searchStarted;
      const pkFiles: string[] = [];
      const ranked = granularity === 'files' ? (retrieval.files ?? []) : retrieval.results;
      for (const result of ranked) if (!pkFiles.includes(result.path)) pkFiles.push(result.path);
      const pkTokens = retrieval.results.reduce((sum, result) => sum + result.tokens, 0);
      const bm25Files = bm25Rank(instance.query, documents.current()).slice(0, bm25Depth);
      const indexed = new Set((await engine.files()).map((file) => file.path));
      const outcome: InstanceOutcome = {
        repository: instance.repository,
        commit: instance.commit,
        split: instance.split,
        answer: instance.answer,
        pk: rankedOutcome(pkFiles, instance.answer, pkTokens),
        bm25: rankedOutcome(bm25Files, instance.answer, 0),
        answerIndexed: instance.answer.some((file) => indexed.has(file)),
        syncMs,
        searchMs,
        pkTop: pkFiles.slice(0, 20),
        bm25Top: bm25Files.slice(0, 20),
      };
      outcomes.push(outcome);
      if (verbose) {
        const subject = instance.query.split('\n')[0].slice(0, 70);
        const ranks = `pk ${String(outcome.pk.rank ?? '-').padStart(2)}  bm25 ${String(outcome.bm25.rank ?? '-').padStart(2)}`;
        const timing = `${Math.round(syncMs)}+${Math.round(searchMs)} ms`;
        console.log(`  ${instance.commit.slice(0, 10)} ${instance.split.padEnd(8)} ${ranks}  ${timing}  ${subject}`);
        if (outcome.pk.rank !== 1) {
          console.log(`      answer ${instance.answer.join(', ')}; pk top ${pkFiles.slice(0, 3).join(', ') || '(none)'}`);
        }
      }
    }
  } finally {
    await engine?.close();
    git(clone, ['worktree', 'remove', '--force', workTree]);
    fs.rmSync(workTree, { recursive: true, force: true });
  }
  return outcomes;
}

function row(label: string, value: LocalizationFigures, tokens: boolean): string {
  const cells = [
    `n=${String(value.instances).padStart(3)}`,
    `Acc@1 ${value.accAt1.toFixed(1).padStart(5)}`,
    `Acc@5 ${value.accAt5.toFixed(1).padStart(5)}`,
    `Acc@10 ${value.accAt10.toFixed(1).padStart(5)}`,
    `MRR ${value.mrr.toFixed(3)}`,
    `All@10 ${value.allAt10.toFixed(1).padStart(5)}`,
    `found ${value.found.toFixed(1).padStart(5)}`,
    `files/query ${value.meanFiles.toFixed(1).padStart(4)}`,
  ];
  if (tokens) cells.push(`tokens/query ${String(value.meanTokens).padStart(5)}`);
  return `  ${label.padEnd(28)} ${cells.join('  ')}`;
}

export interface LocalizationReport {
  split: SplitChoice;
  skipped: string[];
  summary: Record<string, { pk: LocalizationFigures; bm25: LocalizationFigures }>;
  meanSyncMs: number;
  meanSearchMs: number;
  outcomes: InstanceOutcome[];
}

/** Runs the localization set; undefined (after a message) when none of its repositories is present. */
export async function runLocalization(options: LocalizationOptions): Promise<LocalizationReport | undefined> {
  const instances = loadInstances(options.instancesFile).filter(
    (instance) =>
      (options.split === 'all' || instance.split === options.split) && (!options.repository || instance.repository === options.repository),
  );
  const skipped: string[] = [];
  const outcomes: InstanceOutcome[] = [];
  const started = performance.now();
  console.log(
    `\nLocalization set: split ${options.split}, ${instances.length} instances, ` +
      `repositories expected under ${options.reposDirectory} (PK_LOCALIZATION_REPOS)`,
  );
  for (const repository of allRepositories) {
    let selected = instances
      .filter((instance) => instance.repository === repository.name)
      .sort((left, right) => (left.date < right.date ? -1 : left.date > right.date ? 1 : 0));
    if (selected.length === 0) continue;
    if (options.maxPerRepository !== undefined) selected = selected.slice(-options.maxPerRepository);
    const clone = path.join(options.reposDirectory, workTreeName(repository.name));
    if (!hasCommit(clone, selected[selected.length - 1].commit)) {
      skipped.push(repository.name);
      console.log(`  skipped ${repository.name}: no clone with its history at ${clone}`);
      continue;
    }
    const repositoryStarted = performance.now();
    const results = await runRepository(repository, clone, selected, options.verbose === true, options.granularity);
    outcomes.push(...results);
    const seconds = Math.round((performance.now() - repositoryStarted) / 1000);
    console.log(`  ${repository.name} (${repository.language}): ${results.length} instances in ${seconds} s`);
  }
  if (outcomes.length === 0) {
    console.log(
      `Localization set skipped: no repository found under ${options.reposDirectory}; ` +
        'see test/quality/localization/README.md to fetch them.',
    );
    return undefined;
  }
  const summary: LocalizationReport['summary'] = {};
  const add = (key: string, selected: InstanceOutcome[]) => {
    if (selected.length === 0) return;
    summary[key] = {
      pk: localizationFigures(selected.map((outcome) => outcome.pk)),
      bm25: localizationFigures(selected.map((outcome) => outcome.bm25)),
    };
  };
  const splits: Split[] = options.split === 'all' ? ['tune', 'held-out'] : [options.split];
  for (const split of splits) {
    add(
      split,
      outcomes.filter((outcome) => outcome.split === split),
    );
    for (const repository of allRepositories) {
      add(
        `${split} ${repository.name}`,
        outcomes.filter((outcome) => outcome.split === split && outcome.repository === repository.name),
      );
    }
  }
  if (options.split === 'all') add('all', outcomes);
  // Ranking alone, where some answers are files the index excludes: the same figures over the instances it can answer.
  const unanswerable = outcomes.filter((outcome) => !outcome.answerIndexed);
  if (unanswerable.length > 0) {
    for (const split of splits) {
      add(
        `${split} answer indexed`,
        outcomes.filter((outcome) => outcome.split === split && outcome.answerIndexed),
      );
    }
  }
  console.log(`\nFile localization (Acc@k and found in %; pk = search --limit 50 mapped to files, bm25 = Okapi over whole source files):`);
  for (const [key, value] of Object.entries(summary)) {
    console.log(row(`${key} pk`, value.pk, true));
    console.log(row(`${key} bm25`, value.bm25, false));
  }
  const meanSyncMs = Math.round(outcomes.reduce((sum, outcome) => sum + outcome.syncMs, 0) / outcomes.length);
  const meanSearchMs = Math.round(outcomes.reduce((sum, outcome) => sum + outcome.searchMs, 0) / outcomes.length);
  const totalSeconds = Math.round((performance.now() - started) / 1000);
  if (unanswerable.length > 0) {
    console.log(
      `  ${unanswerable.length} of ${outcomes.length} instances have no answer file in the index (excluded by the engine's rules)`,
    );
  }
  console.log(`  mean incremental sync ${meanSyncMs} ms, mean search ${meanSearchMs} ms, total ${totalSeconds} s`);
  const report: LocalizationReport = { split: options.split, skipped, summary, meanSyncMs, meanSearchMs, outcomes };
  if (options.jsonFile) fs.writeFileSync(options.jsonFile, JSON.stringify(report, null, 1));
  console.log(JSON.stringify({ localization: { split: options.split, skipped, summary, meanSyncMs, meanSearchMs } }));
  return report;
}

/** `--split` as given, or tune; anything else is refused with a one-line message. */
export function splitArgument(argv: string[]): SplitChoice {
  const index = argv.indexOf('--split');
  if (index < 0) return 'tune';
  const value = argv[index + 1];
  if (value === 'tune' || value === 'held-out' || value === 'all') return value;
  throw new Error(`--split takes tune, held-out or all (got ${value ?? 'nothing'})`);
}

function optionValue(argv: string[], flag: string): string | undefined {
  const index = argv.indexOf(flag);
  return index >= 0 ? argv[index + 1] : undefined;
}

export function localizationOptions(argv: string[]): LocalizationOptions {
  const max = optionValue(argv, '--max-per-repo');
  if (max !== undefined && !(Number(max) > 0)) throw new Error(`--max-per-repo takes a positive number (got ${max})`);
  return {
    split: splitArgument(argv),
    reposDirectory: optionValue(argv, '--repos') ?? defaultReposDirectory(),
    repository: optionValue(argv, '--repo'),
    maxPerRepository: max === undefined ? undefined : Math.trunc(Number(max)),
    verbose: argv.includes('--verbose'),
    jsonFile: optionValue(argv, '--localization-json'),
    instancesFile: optionValue(argv, '--instances'),
    granularity: argv.includes('--files') ? 'files' : 'snippets',
  };
}

if (require.main === module) {
  Promise.resolve()
    .then(() => runLocalization(localizationOptions(process.argv.slice(2))))
    .catch((error: unknown) => {
      console.error(`quality: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    });
}
