/** Bounds and options of one project index; every field has a safe default (SPEC §4). */
export interface IndexBounds {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
  maxDirectories: number;
  windowLines: number;
  overlapLines: number;
}

export interface EngineOptions {
  bounds: IndexBounds;
  /** Extra gitignore-style globs to leave out (VS Code `files.exclude` and user settings). */
  excludeGlobs: string[];
  /** Use `git ls-files` when the root is inside a repository (default true). */
  useGit: boolean;
  /** Upper bound of results per search. */
  results: number;
  /** Token budget of one retrieval. */
  budgetTokens: number;
  /** Hybrid vector ranking (off by default). */
  semantic: boolean;
}

export const defaultBounds: IndexBounds = {
  maxFiles: 10_000,
  maxFileBytes: 512_000,
  maxTotalBytes: 50_000_000,
  maxDirectories: 20_000,
  windowLines: 80,
  overlapLines: 12,
};

export const defaultOptions: EngineOptions = {
  bounds: defaultBounds,
  excludeGlobs: [],
  useGit: true,
  results: 8,
  budgetTokens: 20_000,
  semantic: false,
};

function clampInteger(value: unknown, fallback: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

/** Merges partial options over the defaults, clamping every number into a safe range. */
export function resolveOptions(partial: Partial<Omit<EngineOptions, 'bounds'>> & { bounds?: Partial<IndexBounds> } = {}): EngineOptions {
  const bounds = partial.bounds ?? {};
  const windowLines = clampInteger(bounds.windowLines, defaultBounds.windowLines, 10, 1000);
  return {
    bounds: {
      maxFiles: clampInteger(bounds.maxFiles, defaultBounds.maxFiles, 1, 1_000_000),
      maxFileBytes: clampInteger(bounds.maxFileBytes, defaultBounds.maxFileBytes, 1_000, 50_000_000),
      maxTotalBytes: clampInteger(bounds.maxTotalBytes, defaultBounds.maxTotalBytes, 1_000, 5_000_000_000),
      maxDirectories: clampInteger(bounds.maxDirectories, defaultBounds.maxDirectories, 1, 10_000_000),
      windowLines,
      overlapLines: clampInteger(bounds.overlapLines, defaultBounds.overlapLines, 0, windowLines - 1),
    },
    excludeGlobs: Array.isArray(partial.excludeGlobs) ? partial.excludeGlobs.filter((glob) => typeof glob === 'string') : [],
    useGit: partial.useGit ?? true,
    results: clampInteger(partial.results, defaultOptions.results, 1, 100),
    budgetTokens: clampInteger(partial.budgetTokens, defaultOptions.budgetTokens, 500, 1_000_000),
    semantic: partial.semantic === true,
  };
}
