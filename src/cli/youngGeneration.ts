import { namesNodeFlag } from './nodeFlags';

/**
 * The engine thread's young generation while `pk index` runs, as V8's semi-space size in MB. V8's
 * default on a 64-bit machine grows each of the two semi-spaces to 16 MB, and what the nursery
 * holds between scavenges is not only its own 32 MB: the buffers of the files read, of the worker
 * messages and of the full-text rows are freed (into the malloc heap) only when the objects that
 * own them are collected. `pk index` of microsoft/vscode-copilot-chat (4,206 files), two passes
 * each: 410 / 357 MB by default, 365 / 350 at 4, 333 / 338 at 2, 317 / 321 at 1, for 35.4 / 35.9
 * against 38.0 / 38.0 CPU-s (user + system) at 1 (docs/measurements.md). V8 sizes the young generation when
 * the heap is set up, so the flag has to be on the command line of the process.
 */
export const indexSemiSpaceMb = 1;

const flag = `--max-semi-space-size=${indexSemiSpaceMb}`;

/** The node flags that give an indexing process the young generation above, unless the command line or `NODE_OPTIONS` names a semi-space size (a user's choice is kept). */
export function youngGenerationFlags(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): string[] {
  return namesNodeFlag(/^--(max|min)[-_]semi[-_]space[-_]size\b/, execArgv, nodeOptions) ? [] : [flag];
}
