import type { lintSource } from '@secretlint/core';

/**
 * The second layer of secret detection: secretlint's recommended rules, run on the text the
 * engine already read and decoded (never on a path: `noPhysicFilePath` keeps every rule off the
 * file system). It runs beside the project's own rules (`secrets.ts`), which are synchronous and
 * also guard the live reads; this layer runs once per new content, before any row is written.
 */

type CoreConfig = Parameters<typeof lintSource>[0]['options']['config'];

interface Secretlint {
  lintSource: typeof lintSource;
  config: CoreConfig;
}

let loaded: Promise<Secretlint> | undefined;

/**
 * secretlint's packages are ES modules. They are loaded with `import()`, once, rather than by
 * `require`: Node 20's require(esm) can abort the whole process (`v8::Module::IsGraphAsync must be
 * used on an instantiated module`) when a synchronous require meets a graph still being loaded,
 * and the engine already awaits this layer.
 */
function loadSecretlint(): Promise<Secretlint> {
  loaded ??= (async () => {
    const core = await import('@secretlint/core');
    const profiler = await import('@secretlint/profiler');
    const preset = await import('@secretlint/secretlint-rule-preset-recommend');
    /**
     * secretlint's profiler is always on: each call leaves ~110 `performance` marks in the process's
     * timeline and in its own array, never cleared (measured: 560,000 marks and 231 MB of heap after
     * 5,000 files). The engine lives as long as the editor, so the marks are switched off.
     */
    profiler.secretLintProfiler.mark = () => undefined;
    /**
     * Every recommended rule except `filter-comments`: a `secretlint-disable` comment keeps a value
     * out of a CI report, and that is exactly a value that must not reach an index read by a model.
     */
    const config: CoreConfig = {
      rules: preset.rules
        .filter((rule) => rule.meta.id !== '@secretlint/secretlint-rule-filter-comments')
        .map((rule) => ({ id: rule.meta.id, rule })),
    };
    return { lintSource: core.lintSource, config };
  })();
  return loaded;
}

export interface SecretlintFinding {
  /** `secretlint/<rule>`, e.g. `secretlint/aws`. */
  rule: string;
  line: number;
}

function extensionOf(relativePath: string): string {
  const base = relativePath.slice(relativePath.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot) : '';
}

/**
 * Documentation writes tokens of the right shape with a filler body (`ghp_xxxx…`, `T00000000`,
 * `…EXAMPLE`, `-your-token`): eight equal characters in a row occur in no generated token, and a
 * random body spells one of these words, all in one case, about once in a million tokens.
 */
const documentedPlaceholderPattern = /(.)\1{7}|example|EXAMPLE|your|YOUR|placeholder|PLACEHOLDER|dummy|DUMMY|redacted|REDACTED/;

function isDocumentedPlaceholder(match: string): boolean {
  return documentedPlaceholderPattern.test(match);
}

/**
 * The first secret secretlint reports in `text`, by position, or `undefined`. The finding names
 * the rule and line only; `maskSecrets` keeps the value out of the messages we never keep anyway.
 */
export async function findSecretlintSecret(text: string, relativePath: string): Promise<SecretlintFinding | undefined> {
  // `.p12` makes the GCP rule read the file from disk; such files are binary and never get here.
  const ext = extensionOf(relativePath);
  const { lintSource, config } = await loadSecretlint();
  const result = await lintSource({
    source: { content: text, filePath: relativePath, ext: ext === '.p12' ? '' : ext, contentType: 'text' },
    options: { config, maskSecrets: true, noPhysicFilePath: true },
  });
  let first: (typeof result.messages)[number] | undefined;
  for (const message of result.messages) {
    if (isDocumentedPlaceholder(text.slice(message.range[0], message.range[1]))) continue;
    if (!first || message.range[0] < first.range[0]) first = message;
  }
  if (!first) return undefined;
  const rule = first.ruleId.replace(/^@secretlint\/secretlint-rule-/, 'secretlint/');
  return { rule, line: first.loc.start.line };
}
