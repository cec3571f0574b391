/**
 * What one thread of the parse pool (`parsePool.ts`) does: it builds the engine's parser chain again from
 * its recipes and runs `analyzeFile` (sniffing, hashing, secret rules, secretlint, tree-sitter,
 * chunking) on the bytes the sync sends, one file at a time, answering with the rows to write.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { treeSitterHeapBytes } from '../parsing/grammarRegistry';
import { ParserChain } from '../parsing/parserChain';
import { parsersFromRecipes } from '../parsing/structuralParsers';
import type { AnalysisContext } from '../fileAnalysis';
import { analyzeFile } from '../sync';
import type { ParseJob, ParseWorkerData, ParseWorkerReply } from './parsePool';

/** Answers the pool's jobs on `parentPort` (the entry is `parseWorker.ts`). */
export function serveParseJobs(): void {
  const port = parentPort;
  if (!port) return;
  const data = workerData as ParseWorkerData;
  const parsers = new ParserChain(parsersFromRecipes(data.recipes));
  let warnings: string[] = [];
  const context: AnalysisContext = {
    projectId: data.projectId,
    options: data.options,
    parsers,
    warn: (message) => warnings.push(message),
  };
  const reply = (message: ParseWorkerReply) => port.postMessage(message);
  reply({ type: 'ready', version: parsers.version });
  // Jobs run one after another, as inline: a parser keeps per-parse state (its decline reason) across awaits.
  let queue = Promise.resolve();
  port.on('message', (job: ParseJob) => {
    queue = queue.then(async () => {
      warnings = [];
      try {
        const analysis = await analyzeFile(context, job.path, job.bytes, job.knownHash, job.force);
        reply({ type: 'done', id: job.id, analysis, warnings, heapBytes: treeSitterHeapBytes() });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        reply({ type: 'failed', id: job.id, message, warnings, heapBytes: treeSitterHeapBytes() });
      }
    });
  });
}
