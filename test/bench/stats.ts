import { execFile } from 'node:child_process';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';

export interface LatencyStats {
  n: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  minMs: number;
  maxMs: number;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

export function summarize(samples: number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    meanMs: round(mean, 3),
    p50Ms: round(percentile(sorted, 50), 3),
    p90Ms: round(percentile(sorted, 90), 3),
    p99Ms: round(percentile(sorted, 99), 3),
    minMs: round(sorted[0] ?? NaN, 3),
    maxMs: round(sorted[sorted.length - 1] ?? NaN, 3),
  };
}

export function formatStats(stats: LatencyStats): string {
  return `mean ${stats.meanMs.toFixed(2)} ms  p50 ${stats.p50Ms.toFixed(2)}  p90 ${stats.p90Ms.toFixed(2)}  p99 ${stats.p99Ms.toFixed(2)}  max ${stats.maxMs.toFixed(2)}  (n=${stats.n})`;
}

export const mb = (bytes: number): number => bytes / (1024 * 1024);

/**
 * Samples RSS on a timer and the event-loop delay while some work runs. The timer only fires
 * when the loop is free, so the peak is a lower bound; `process.resourceUsage().maxRSS` is the
 * process-wide peak.
 */
export class ResourceMonitor {
  private timer: NodeJS.Timeout | undefined;
  private histogram: IntervalHistogram | undefined;
  peakRss = 0;

  start(intervalMs = 20): void {
    this.peakRss = process.memoryUsage().rss;
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.histogram.enable();
  }

  sample(): void {
    const rss = process.memoryUsage().rss;
    if (rss > this.peakRss) this.peakRss = rss;
  }

  stop(): { peakRssMB: number; eventLoopMaxMs: number; eventLoopP99Ms: number; eventLoopMeanMs: number } {
    this.sample();
    if (this.timer) clearInterval(this.timer);
    this.histogram?.disable();
    const h = this.histogram;
    return {
      peakRssMB: round(mb(this.peakRss), 1),
      eventLoopMaxMs: h ? round(h.max / 1e6, 1) : NaN,
      eventLoopP99Ms: h ? round(h.percentile(99) / 1e6, 1) : NaN,
      eventLoopMeanMs: h ? round(h.mean / 1e6, 1) : NaN,
    };
  }
}

export interface CommandResult {
  ms: number;
  ok: boolean;
  /** Output lines (matches, for grep-like tools). */
  lines: number;
  error?: string;
}

/** Runs a program without a shell and times it; exit code 1 (grep's "no match") counts as success. */
export function timeCommand(command: string, args: string[], cwd: string): Promise<CommandResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    execFile(
      command,
      args,
      {
        cwd,
        maxBuffer: 512 * 1024 * 1024,
        encoding: 'buffer',
        windowsHide: true,
        env: { ...process.env, LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' },
      },
      (error, stdout) => {
        const ms = performance.now() - started;
        let lines = 0;
        for (let i = 0; i < stdout.length; i++) if (stdout[i] === 10) lines++;
        const code: unknown = error ? (error as { code?: unknown }).code : undefined;
        if (!error || code === 1) resolve({ ms, ok: true, lines });
        else resolve({ ms, ok: false, lines, error: error.message.split('\n')[0] });
      },
    );
  });
}

/** The first line of `command --version`, or undefined when it cannot run. */
export async function commandVersion(command: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, ['--version'], { encoding: 'utf8', windowsHide: true }, (error, stdout) =>
      resolve(error ? undefined : stdout.split('\n')[0].trim()),
    );
  });
}
