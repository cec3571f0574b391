/**
 * A parse worker that misbehaves on one file, for the parse pool's failure tests. The fault comes
 * from `PK_TEST_PARSE_FAULT` (`exit:PATH`, `hang:PATH`, `throw:PATH` or `heap:PATH`, which allocates until the
 * worker's heap bound stops it; `slow-ready:MS` serves only
 * after MS milliseconds, as a start on a busy machine does; `never-ready:` never
 * serves at all), which a worker thread inherits from its parent's environment. Its listener runs
 * before the real worker's.
 */
import { parentPort } from 'node:worker_threads';
import { serveParseJobs } from '../../src/core/worker/parseJobs';
import type { ParseJob } from '../../src/core/worker/parsePool';

const [how, faultPath] = (process.env.PK_TEST_PARSE_FAULT ?? '').split(/:(.*)/s);

parentPort?.on('message', (job: ParseJob) => {
  if (job.path !== faultPath) return;
  if (how === 'exit') process.exit(7);
  if (how === 'hang') for (;;);
  if (how === 'heap') {
    const held: string[][] = [];
    for (;;) held.push(Array.from({ length: 1 << 16 }, (_, index) => `${index}:${held.length}`));
  }
  // The real worker then fails inside analyzeFile and answers `failed`.
  if (how === 'throw') (job as { bytes: unknown }).bytes = undefined;
});

if (how === 'slow-ready') setTimeout(serveParseJobs, Number(faultPath));
else if (how !== 'never-ready') serveParseJobs();
