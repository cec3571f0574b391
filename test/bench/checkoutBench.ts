/**
 * The checkout case of issue 15: `pk index` after a `git checkout` that changes a few hundred
 * files. A working tree is cloned from a repository (a bare or normal git directory) into a
 * temporary folder; the index is built at the first ref, then `pk index` runs, each as its own
 * process as a user would run it, after checking out the second ref and after going back, as
 * many rounds as asked. Each run reports its wall time, its CPU time (every thread, parse
 * workers included) and its peak RSS, read by a preloaded module when the process exits. It is
 * measured with the default parse pool and with `PK_PARSE_WORKERS=0` (everything on one
 * thread), and with any other builds' `cli.js` given, in the same pass, for A/B comparisons.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { round, summarize } from './stats';

/** One `pk index` process: wall and CPU milliseconds, peak RSS, and the sync's own time as it reports it. */
export interface IndexRun {
  wallMs: number;
  cpuMs: number;
  peakRssMB: number;
  /** The sync's duration as `pk index` prints it (without process start and module loading). */
  syncMs: number | null;
}

export interface CheckoutRun {
  /** The `cli.js` measured. */
  cli: string;
  /** `PK_PARSE_WORKERS` for the runs (`default`: unset). */
  workers: string;
  cold: IndexRun;
  /** Each round's `pk index` after checking out the second ref, then after going back to the first. */
  forward: IndexRun[];
  back: IndexRun[];
  /** Medians over the rounds. */
  forwardMedian: IndexRun;
  backMedian: IndexRun;
  forwardReport: string;
}

export interface CheckoutFigures {
  source: string;
  refs: [string, string];
  filesAtFirst: number;
  changedFiles: number;
  rounds: number;
  loadAverage: number[];
  runs: CheckoutRun[];
}

export interface CheckoutOptions {
  /** `cli.js` of this build first, then any others to compare in the same pass. */
  clis: string[];
  rounds: number;
  workers: string[];
}

/** Written into the temporary folder and preloaded (`--require`) into each `pk index`: its resource usage at exit. */
const usageProbe = `'use strict';
process.on('exit', () => {
  try {
    require('node:fs').writeFileSync(process.env.PK_BENCH_USAGE_FILE, JSON.stringify(process.resourceUsage()));
  } catch {}
});
`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function pkIndex(cliScript: string, root: string, dbPath: string, workers: string, probe: string): { run: IndexRun; line: string } {
  const usageFile = path.join(path.dirname(probe), 'usage.json');
  fs.rmSync(usageFile, { force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, PK_BENCH_USAGE_FILE: usageFile };
  if (workers === 'default') delete env.PK_PARSE_WORKERS;
  else env.PK_PARSE_WORKERS = workers;
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--require', probe, cliScript, 'index', '--db', dbPath, root], { encoding: 'utf8', env });
  const wallMs = round(performance.now() - started, 0);
  if (result.status !== 0) throw new Error(`pk index exited ${result.status}: ${(result.stderr || result.stdout).split('\n')[0]}`);
  const line = result.stdout.trim().split('\n').pop() ?? '';
  const reported = /in (\d+) ms/.exec(line);
  const usage = JSON.parse(fs.readFileSync(usageFile, 'utf8')) as NodeJS.ResourceUsage;
  return {
    run: {
      wallMs,
      cpuMs: round((usage.userCPUTime + usage.systemCPUTime) / 1000, 0),
      peakRssMB: round(usage.maxRSS / 1024, 0),
      syncMs: reported ? Number(reported[1]) : null,
    },
    line,
  };
}

function medianRun(runs: IndexRun[]): IndexRun {
  const of = (pick: (run: IndexRun) => number) => round(summarize(runs.map(pick)).p50Ms, 0);
  const syncs = runs.map((run) => run.syncMs).filter((value): value is number => value !== null);
  return {
    wallMs: of((run) => run.wallMs),
    cpuMs: of((run) => run.cpuMs),
    peakRssMB: of((run) => run.peakRssMB),
    syncMs: syncs.length > 0 ? round(summarize(syncs).p50Ms, 0) : null,
  };
}

function describeRun(run: IndexRun): string {
  return `${run.wallMs} ms wall, ${run.cpuMs} ms CPU, ${run.peakRssMB} MB peak RSS (sync ${run.syncMs} ms)`;
}

export function checkoutBench(
  source: string,
  refs: [string, string],
  options: CheckoutOptions,
  log: (line: string) => void,
): CheckoutFigures {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'pk-bench-checkout-'));
  try {
    const probe = path.join(directory, 'usage-probe.js');
    fs.writeFileSync(probe, usageProbe);
    const tree = path.join(directory, 'tree');
    git(directory, 'clone', '-q', '--no-checkout', source, tree);
    git(tree, 'checkout', '-q', refs[0]);
    const filesAtFirst = git(tree, 'ls-files', '-z').split('\0').filter(Boolean).length;
    const changedFiles = git(tree, 'diff', '--name-only', '-z', refs[0], refs[1]).split('\0').filter(Boolean).length;
    log(`[checkout] ${source}: ${refs[0]} (${filesAtFirst} files) -> ${refs[1]}: ${changedFiles} files differ; ${options.rounds} round(s)`);
    const loadAverage = os.loadavg().map((value) => round(value, 1));
    const runs: CheckoutRun[] = [];
    for (const cli of options.clis) {
      for (const workers of options.workers) {
        const dbPath = path.join(directory, `index-${runs.length}.sqlite`);
        git(tree, 'checkout', '-q', refs[0]);
        const cold = pkIndex(cli, tree, dbPath, workers, probe).run;
        const forward: IndexRun[] = [];
        const back: IndexRun[] = [];
        let forwardReport = '';
        for (let round = 0; round < options.rounds; round++) {
          git(tree, 'checkout', '-q', refs[1]);
          const ahead = pkIndex(cli, tree, dbPath, workers, probe);
          forward.push(ahead.run);
          forwardReport = ahead.line;
          git(tree, 'checkout', '-q', refs[0]);
          back.push(pkIndex(cli, tree, dbPath, workers, probe).run);
        }
        const run: CheckoutRun = {
          cli,
          workers,
          cold,
          forward,
          back,
          forwardMedian: medianRun(forward),
          backMedian: medianRun(back),
          forwardReport,
        };
        runs.push(run);
        log(`  ${cli} PK_PARSE_WORKERS=${workers}:`);
        log(`    cold at ${refs[0]}: ${describeRun(cold)}`);
        log(`    pk index after checkout ${refs[1]} (median): ${describeRun(run.forwardMedian)}`);
        log(`    back to ${refs[0]} (median): ${describeRun(run.backMedian)}`);
        log(`    ${forwardReport}`);
      }
    }
    loadAverage.push(...os.loadavg().map((value) => round(value, 1)));
    log(`  load average before / after: ${loadAverage.slice(0, 3).join(' ')} / ${loadAverage.slice(3).join(' ')}`);
    return { source, refs, filesAtFirst, changedFiles, rounds: options.rounds, loadAverage, runs };
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
