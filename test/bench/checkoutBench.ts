/**
 * The checkout case of issue 15: `pk index` after a `git checkout` that changes a few hundred
 * files. A working tree is cloned from a repository (a bare or normal git directory) into a
 * temporary folder; the index is built at the first ref, then `pk index` runs, each as its own
 * process as a user would run it, after checking out the second ref and after going back. It is
 * measured with the default parse pool and with `PK_PARSE_WORKERS=0` (everything on one thread).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { round } from './stats';

export interface CheckoutRun {
  /** `PK_PARSE_WORKERS` for the runs (`default`: unset). */
  workers: string;
  coldMs: number;
  forwardMs: number;
  backMs: number;
  /** The sync's own duration as `pk index` reports it, without process start and database load. */
  forwardSyncMs: number | null;
  backSyncMs: number | null;
  forwardReport: string;
}

export interface CheckoutFigures {
  source: string;
  refs: [string, string];
  filesAtFirst: number;
  changedFiles: number;
  runs: CheckoutRun[];
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function pkIndex(cliScript: string, root: string, dbPath: string, workers: string): { ms: number; line: string; syncMs: number | null } {
  const env = { ...process.env };
  if (workers === 'default') delete env.PK_PARSE_WORKERS;
  else env.PK_PARSE_WORKERS = workers;
  const started = performance.now();
  const result = spawnSync(process.execPath, [cliScript, 'index', '--db', dbPath, root], { encoding: 'utf8', env });
  const ms = round(performance.now() - started, 0);
  if (result.status !== 0) throw new Error(`pk index exited ${result.status}: ${(result.stderr || result.stdout).split('\n')[0]}`);
  const line = result.stdout.trim().split('\n').pop() ?? '';
  const reported = /in (\d+) ms/.exec(line);
  return { ms, line, syncMs: reported ? Number(reported[1]) : null };
}

export function checkoutBench(source: string, refs: [string, string], cliScript: string, log: (line: string) => void): CheckoutFigures {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'pk-bench-checkout-'));
  try {
    const tree = path.join(directory, 'tree');
    git(directory, 'clone', '-q', '--no-checkout', source, tree);
    git(tree, 'checkout', '-q', refs[0]);
    const filesAtFirst = git(tree, 'ls-files', '-z').split('\0').filter(Boolean).length;
    const changedFiles = git(tree, 'diff', '--name-only', '-z', refs[0], refs[1]).split('\0').filter(Boolean).length;
    log(`[checkout] ${source}: ${refs[0]} (${filesAtFirst} files) -> ${refs[1]}: ${changedFiles} files differ`);
    const runs: CheckoutRun[] = [];
    for (const workers of ['default', '0']) {
      const dbPath = path.join(directory, `index-${workers}.sqlite`);
      git(tree, 'checkout', '-q', refs[0]);
      const cold = pkIndex(cliScript, tree, dbPath, workers);
      git(tree, 'checkout', '-q', refs[1]);
      const forward = pkIndex(cliScript, tree, dbPath, workers);
      git(tree, 'checkout', '-q', refs[0]);
      const back = pkIndex(cliScript, tree, dbPath, workers);
      const run: CheckoutRun = {
        workers,
        coldMs: cold.ms,
        forwardMs: forward.ms,
        backMs: back.ms,
        forwardSyncMs: forward.syncMs,
        backSyncMs: back.syncMs,
        forwardReport: forward.line,
      };
      runs.push(run);
      log(
        `  PK_PARSE_WORKERS=${workers}: cold ${cold.ms} ms; pk index after checkout ${refs[1]} ${forward.ms} ms (sync ${forward.syncMs} ms), back to ${refs[0]} ${back.ms} ms (sync ${back.syncMs} ms)`,
      );
      log(`    ${forward.line}`);
    }
    return { source, refs, filesAtFirst, changedFiles, runs };
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
