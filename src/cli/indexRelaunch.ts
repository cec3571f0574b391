import { arenaEnvironment } from './mallocArenas';
import { youngGenerationFlags } from './youngGeneration';

/** The command that indexes at length, worth a second process start (tens of milliseconds). */
const relaunchedCommands = new Set(['index']);

export interface Relaunch {
  env: NodeJS.ProcessEnv;
  /** Node's own flags for the new process: this one's, then the ones it lacks. */
  execArgv: string[];
}

/**
 * How `bin/pk.js` starts `argv` (pk's arguments, without node and the script) again, or undefined
 * to run it here: `pk index` runs in a process with one malloc arena on Linux (`mallocArenas.ts`)
 * and the engine thread's smaller young generation (`youngGeneration.ts`), both of which only a
 * process start can set. The new process has both, which ends the relaunch; the quick commands
 * never relaunch.
 */
export function indexRelaunch(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  execArgv: readonly string[] = process.execArgv,
): Relaunch | undefined {
  if (!relaunchedCommands.has(argv[0] ?? '')) return undefined;
  const arenas = arenaEnvironment(env, platform);
  const flags = youngGenerationFlags(execArgv, env.NODE_OPTIONS ?? '');
  if (!arenas && flags.length === 0) return undefined;
  return { env: arenas ?? { ...env }, execArgv: [...execArgv, ...flags] };
}
