import * as vscode from 'vscode';
import type { EngineOptionsInput } from '../core/worker/protocol';
import type { RankingMode } from '../core/curation/ranker';

/** Every setting of the extension, read once through one typed place with safe defaults. */
export interface Config {
  enabled: boolean;
  engine: EngineOptionsInput;
  results: number;
  promptBudget: number;
  /** Whether `@project` lets the chat model rewrite a request into code terms before searching. */
  rewriteQuery: boolean;
  /** `projectKnowledge.ranking.mode`: the learned ranker off (default), in shadow, or active once promoted. */
  rankingMode: RankingMode;
}

/** Settings whose change alters what is indexed, so the index must be reopened and re-synced. */
export const reindexSettings = [
  'projectKnowledge.maxFiles',
  'projectKnowledge.maxFileBytes',
  'projectKnowledge.maxTotalBytes',
  'projectKnowledge.maxDirectories',
  'projectKnowledge.windowLines',
  'projectKnowledge.overlapLines',
  'projectKnowledge.exclude',
  'projectKnowledge.useGit',
  'projectKnowledge.semantic',
  'projectKnowledge.enabled',
  'files.exclude',
];

function numberSetting(section: vscode.WorkspaceConfiguration, key: string, fallback: number): number {
  const value = section.get<unknown>(key);
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** `files.exclude` entries that are switched on, as gitignore-style globs. */
function filesExcludeGlobs(scope: vscode.ConfigurationScope | undefined): string[] {
  const value = vscode.workspace.getConfiguration('files', scope).get<Record<string, unknown>>('exclude') ?? {};
  return Object.entries(value)
    .filter(([, enabled]) => enabled === true)
    .map(([glob]) => glob);
}

export function readConfig(scope?: vscode.ConfigurationScope): Config {
  const section = vscode.workspace.getConfiguration('projectKnowledge', scope);
  const extra = section.get<unknown>('exclude');
  const results = numberSetting(section, 'results', 8);
  const promptBudget = numberSetting(section, 'promptBudget', 20_000);
  return {
    enabled: section.get<boolean>('enabled') !== false,
    rewriteQuery: section.get<unknown>('rewriteQuery') === true,
    results,
    promptBudget,
    rankingMode: rankingModeOf(section.get<unknown>('ranking.mode')),
    engine: {
      bounds: {
        maxFiles: numberSetting(section, 'maxFiles', 10_000),
        maxFileBytes: numberSetting(section, 'maxFileBytes', 512_000),
        maxTotalBytes: numberSetting(section, 'maxTotalBytes', 50_000_000),
        maxDirectories: numberSetting(section, 'maxDirectories', 20_000),
        windowLines: numberSetting(section, 'windowLines', 80),
        overlapLines: numberSetting(section, 'overlapLines', 12),
      },
      excludeGlobs: [
        ...(Array.isArray(extra) ? extra.filter((glob): glob is string => typeof glob === 'string') : []),
        ...filesExcludeGlobs(scope),
      ],
      useGit: section.get<boolean>('useGit') !== false,
      semantic: section.get<boolean>('semantic') === true,
      results,
      budgetTokens: promptBudget,
    },
  };
}

/** A bad value is `off`: the learned ranker changes nothing unless asked to. */
function rankingModeOf(value: unknown): RankingMode {
  return value === 'shadow' || value === 'active' ? value : 'off';
}
