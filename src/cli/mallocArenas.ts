/**
 * glibc gives each thread that allocates under contention a malloc arena of its own, and memory
 * freed in one arena is not reused by the others. A cold index runs the engine and the parse
 * workers on their own threads, so each keeps the high-water mark of its own allocations: on
 * microsoft/vscode-copilot-chat (4,206 files) `pk index` peaked at 390 MB on average over six runs
 * with one arena against 421 MB with the default, at the same CPU, the spread between runs as large
 * as the gain (docs/measurements.md). glibc reads
 * `MALLOC_ARENA_MAX` once, at process start, so `pk index` starts itself again with it set.
 */
export const mallocArenaMax = '1';

/**
 * The environment with one malloc arena to start an indexing process in, or undefined when none
 * is needed: off outside Linux, and when `MALLOC_ARENA_MAX` is already set (which also ends the
 * relaunch). Which commands relaunch is `indexRelaunch`'s to say.
 */
export function arenaEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): NodeJS.ProcessEnv | undefined {
  if (platform !== 'linux' || env.MALLOC_ARENA_MAX !== undefined) return undefined;
  return { ...env, MALLOC_ARENA_MAX: mallocArenaMax };
}
