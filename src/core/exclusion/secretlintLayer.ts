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

type RuleDescriptor = CoreConfig['rules'][number];

/** The preset release whose rules `ruleLiterals` was read from (`secretlintPrefilter.test.ts` fails on another). */
export const auditedPresetVersion = '13.1.0';

/**
 * What each recommended rule needs in a text before it can report anything, read from the rules
 * of `auditedPresetVersion` as configured here (without options, so the aws rule scans for secret
 * access keys only): every rule reports only matches of its own patterns, and each of its patterns
 * holds one of these literals, with the pattern's own case sensitivity. The gcp rule reads only
 * `.json` files (and `.p12`, whose extension it is never given). A rule this table does not name always runs. Running
 * every rule on every new file was most of this layer's cost: each rule is set up for the file
 * and scans the whole text, most from every position (their patterns open with a look-behind).
 */
const ruleLiterals: Readonly<Record<string, readonly RegExp[]>> = {
  '@secretlint/secretlint-rule-aws': [/SECRET|[Ss]ecret/],
  '@secretlint/secretlint-rule-npm': [/:x-oauth-basic@github|_authToken=|npm_/],
  '@secretlint/secretlint-rule-slack': [/xox[bpaor]-|xapp-/, /hooks\.slack\.com\/services\//i],
  '@secretlint/secretlint-rule-basicauth': [/:\/\//],
  '@secretlint/secretlint-rule-openai': [/T3BlbkFJ/],
  '@secretlint/secretlint-rule-anthropic': [/sk-ant-api0/],
  '@secretlint/secretlint-rule-groq': [/gsk_/],
  '@secretlint/secretlint-rule-huggingface': [/hf_/],
  '@secretlint/secretlint-rule-linear': [/lin_api_/],
  '@secretlint/secretlint-rule-notion': [/ntn_/],
  '@secretlint/secretlint-rule-privatekey': [/-----BEGIN/],
  '@secretlint/secretlint-rule-sendgrid': [/SG\./],
  '@secretlint/secretlint-rule-shopify': [/shp(?:pa|ca|at|ss)_/],
  '@secretlint/secretlint-rule-stripe': [/[rs]k_(?:live|test)_/],
  '@secretlint/secretlint-rule-github': [/gh[pousr]_|github_pat_/],
  '@secretlint/secretlint-rule-gitlab': [/glpat-/],
  '@secretlint/secretlint-rule-grafana': [/gl(?:c|sa)_/],
  '@secretlint/secretlint-rule-1password': [/ops_ey/],
  '@secretlint/secretlint-rule-database-connection-string': [/mongodb|mysql|postgres/i],
  '@secretlint/secretlint-rule-hashicorp-vault': [/hv[sbr]\./],
  '@secretlint/secretlint-rule-vercel': [/vc[pciark]_/],
  '@secretlint/secretlint-rule-databricks': [/dapi/],
  '@secretlint/secretlint-rule-docker': [/dckr_pat_/],
  '@secretlint/secretlint-rule-figma': [/figd_/],
  '@secretlint/secretlint-rule-cloudflare': [/cf(?:k|ut|at)_/],
  '@secretlint/secretlint-rule-tailscale': [/tskey-/],
};
const gcpRule = '@secretlint/secretlint-rule-gcp';

/** The rules the table (and the gcp rule's extension check) decides for. */
export const auditedRuleIds: readonly string[] = [...Object.keys(ruleLiterals), gcpRule];

/**
 * Every literal of the table in one pattern per case sensitivity: most texts hold none, and then
 * two scans decide for all the rules at once (an alternation matches wherever one of its parts does).
 */
const allLiterals = Object.values(ruleLiterals).flat();
const anyCaseSensitive = new RegExp(
  allLiterals
    .filter((pattern) => !pattern.ignoreCase)
    .map((pattern) => pattern.source)
    .join('|'),
);
const anyIgnoringCase = new RegExp(
  allLiterals
    .filter((pattern) => pattern.ignoreCase)
    .map((pattern) => pattern.source)
    .join('|'),
  'i',
);

/** Configurations by the rules they keep, so each subset is built once (there are few in practice). */
const configsByRules = new Map<string, CoreConfig>();
const maxConfigs = 256;

/** `config` with only the rules that may report on this text, by `ruleLiterals` (`ext` as the rules get it). */
function configFor(config: CoreConfig, text: string, ext: string): CoreConfig {
  const anyLiteral = anyCaseSensitive.test(text) || anyIgnoringCase.test(text);
  const kept: RuleDescriptor[] = config.rules.filter((rule) => {
    if (rule.id === gcpRule) return ext === '.json';
    const literals = ruleLiterals[rule.id];
    return literals === undefined || (anyLiteral && literals.some((pattern) => pattern.test(text)));
  });
  if (kept.length === config.rules.length) return config;
  const key = kept.map((rule) => rule.id).join(' ');
  let subset = configsByRules.get(key);
  if (!subset) {
    if (configsByRules.size >= maxConfigs) configsByRules.clear();
    subset = { ...config, rules: kept };
    configsByRules.set(key, subset);
  }
  return subset;
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
 * Only the rules that may report on the text run (`ruleLiterals`); `everyRule` runs them all,
 * which the tests compare against.
 */
export async function findSecretlintSecret(text: string, relativePath: string, everyRule = false): Promise<SecretlintFinding | undefined> {
  // `.p12` makes the GCP rule read the file from disk; such files are binary and never get here.
  const fileExt = extensionOf(relativePath);
  const ext = fileExt === '.p12' ? '' : fileExt;
  const { lintSource, config } = await loadSecretlint();
  const rules = everyRule ? config : configFor(config, text, ext);
  if (rules.rules.length === 0) return undefined;
  const result = await lintSource({
    source: { content: text, filePath: relativePath, ext, contentType: 'text' },
    options: { config: rules, maskSecrets: true, noPhysicFilePath: true },
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
