/**
 * An independent recall check of secret detection, on data the project's rules were not tuned on:
 * gitleaks' own rule set, read from a path given on the command line (never committed here).
 *
 *   node out/test/quality/gitleaksRecall.js /path/to/gitleaks.toml [--seed N] [--per-rule N] [--verbose]
 *
 * For every rule with a `regex` it generates matching secrets with randexp (seeded), keeps only
 * samples that the rule itself accepts (entropy threshold, rule and global allowlists, stopwords),
 * plants each one per file in four ordinary syntaxes (a TS `const`, a Python setting, a Kubernetes
 * env value, a JSON config) under a name taken from the rule id, indexes the folder with the real
 * engine and counts the distinct secrets that reach any cell of any table (case-insensitively).
 * It prints the figures and each missed rule with the SHAPE of its secret (letters and digits
 * folded to classes), never a value. The exit code is non-zero only when the input is unusable.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import RandExp from 'randexp';
import { parse } from 'smol-toml';
import { databaseCells } from '../core/secretCorpus';
import { ProjectEngine } from '../../src/core/engine';
import { nodePorts } from '../../src/core/ports';

interface Allowlist {
  regexes: RegExp[];
  stopwords: string[];
  target: 'secret' | 'match' | 'line';
  /** An allowlist limited to some paths (condition AND) never applies to the planted paths. */
  pathBound: boolean;
}

interface Rule {
  id: string;
  generator?: RandExp;
  verifier?: RegExp;
  secretGroup?: number;
  entropy: number;
  allowlists: Allowlist[];
  /** gitleaks applies a rule with a `path` only to matching paths; its misses here are reported as such. */
  path?: string;
  skipped?: string;
}

interface Planted {
  rule: string;
  secret: string;
  files: string[];
}

/** mulberry32: small, fast and seedable, so a run can be repeated exactly. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const posixClasses: Record<string, string> = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  digit: '0-9',
  xdigit: '0-9A-Fa-f',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \\t\\r\\n\\f\\v',
  punct: '!-\\/:-@\\[-`{-~',
  word: '\\w',
};

/**
 * Go RE2 to JavaScript, minimally: a leading `(?i)` becomes the `i` flag, inline `(?i:` / `(?-i:` /
 * `(?s:` groups and mid-pattern `(?i)` become plain groups or vanish (the generator writes the spelling as
 * given, which the original accepts too), `\z` becomes `$`, named groups do not capture (gitleaks takes
 * the secret from numbered groups), POSIX classes are spelled out. Anything
 * left that JavaScript reads differently makes the rule count as not translated.
 */
function translate(source: string): { pattern: string; flags: string } | { error: string } {
  let pattern = source;
  let flags = '';
  const leading = /^\(\?([ims]+)\)/.exec(pattern);
  if (leading) {
    flags = [...new Set(leading[1].split(''))].join('');
    pattern = pattern.slice(leading[0].length);
  }
  pattern = pattern
    .replace(/\(\?-?[ims]+:/g, '(?:')
    // A flag group in the middle (`p8e-(?i)[a-z0-9]{32}`) widens what follows; dropping it narrows to a subset.
    .replace(/\(\?-?[ims]+\)/g, '')
    .replace(/\\z/g, '$')
    .replace(/\\A/g, '^')
    .replace(/\(\?P<\w+>/g, '(?:')
    .replace(/\[:(\w+):\]/g, (whole, name: string) => posixClasses[name] ?? whole);
  if (/\(\?[a-zA-Z-]+\)/.test(pattern)) return { error: 'flags in the middle of the pattern' };
  if (/\\[pPQEC]/.test(pattern)) return { error: 'Unicode classes or quoting' };
  if (/\[:\w+:\]/.test(pattern)) return { error: 'unknown POSIX class' };
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    return { error: `not valid in JavaScript: ${(error as Error).message}` };
  }
  return { pattern, flags };
}

function compileList(sources: unknown): RegExp[] {
  const out: RegExp[] = [];
  for (const source of Array.isArray(sources) ? sources : []) {
    const translated = translate(String(source));
    if ('pattern' in translated) out.push(new RegExp(translated.pattern, translated.flags));
  }
  return out;
}

function readAllowlists(raw: unknown): Allowlist[] {
  const lists = Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? [raw] : [];
  return lists.map((list: Record<string, unknown>) => ({
    regexes: compileList(list.regexes),
    stopwords: (Array.isArray(list.stopwords) ? list.stopwords : []).map((word) => String(word).toLowerCase()),
    target: list.regexTarget === 'match' || list.regexTarget === 'line' ? list.regexTarget : 'secret',
    pathBound: Array.isArray(list.paths) && list.condition === 'AND',
  }));
}

/** Shannon entropy in bits per character, as gitleaks computes it on the secret. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function allowed(lists: Allowlist[], secret: string, match: string, line: string): boolean {
  for (const list of lists) {
    if (list.pathBound) continue;
    const target = list.target === 'match' ? match : list.target === 'line' ? line : secret;
    if (list.regexes.some((regex) => regex.test(target))) return true;
    const lower = secret.toLowerCase();
    if (list.stopwords.some((word) => lower.includes(word))) return true;
  }
  return false;
}

/**
 * The secret of a match as gitleaks takes it: the secret group, else the first non-empty group, else
 * all. A group shorter than 8 characters is a repeated piece of the shape (`([a-z0-9]{4}-){3}`), not the
 * secret, so then the whole match counts.
 */
function secretOf(match: RegExpExecArray, group: number | undefined): string {
  if (group !== undefined) return match[group] ?? '';
  for (let index = 1; index < match.length; index++) if (match[index]) return match[index].length >= 8 ? match[index] : match[0];
  return match[0];
}

/** Letters and digits folded to classes, runs counted: `ghp_` plus 36 mixed reads `a{3}_[Aa9]{36}`. */
function shape(secret: string): string {
  const classOf = (char: string): string => (/[A-Z]/.test(char) ? 'A' : /[a-z]/.test(char) ? 'a' : /[0-9]/.test(char) ? '9' : char);
  const runs: string[] = [];
  let index = 0;
  while (index < secret.length) {
    if (!/[A-Za-z0-9]/.test(secret[index])) {
      runs.push(secret[index] === '\n' ? '\\n' : secret[index]);
      index++;
      continue;
    }
    let end = index;
    const classes = new Set<string>();
    while (end < secret.length && /[A-Za-z0-9]/.test(secret[end])) classes.add(classOf(secret[end++]));
    const label = classes.size === 1 ? [...classes][0] : `[${[...classes].sort().join('')}]`;
    runs.push(`${label}{${end - index}}`);
    index = end;
  }
  return runs.join('');
}

/**
 * Rules for values that are public by design or only name an account (client ids, publishable
 * keys): gitleaks reports them, but they grant nothing alone, so the project does not exclude
 * files for them. The figures are printed with and without them.
 */
function identifierRule(ruleId: string): boolean {
  return /-(?:client|access|user-api)-id$|(?:^|-)pub(?:lic)?-/.test(ruleId);
}

function names(ruleId: string): { camel: string; snake: string } {
  const words = ruleId.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const lead = /^[0-9]/.test(words[0] ?? '') ? '_' : '';
  const camel =
    lead + words.map((word, index) => (index === 0 ? word.toLowerCase() : word[0].toUpperCase() + word.slice(1).toLowerCase())).join('');
  return { camel, snake: lead + words.map((word) => word.toUpperCase()).join('_') };
}

/** The four syntaxes; a multi-line secret is written as each language writes a multi-line string. */
function plantings(ruleId: string, secret: string, index: number): Record<string, string> {
  const { camel, snake } = names(ruleId);
  const base = `${ruleId}-${index}`;
  const multiline = secret.includes('\n');
  const ts = multiline ? `\`${secret}\`` : JSON.stringify(secret);
  const py = multiline ? `"""${secret}"""` : JSON.stringify(secret);
  const yamlValue = multiline
    ? `|\n${secret
        .split('\n')
        .map((line) => `                  ${line}`)
        .join('\n')}`
    : JSON.stringify(secret);
  return {
    [`src/${base}.ts`]: `// Settings for the ${ruleId} client.\nexport const ${camel} = ${ts};\n`,
    [`settings/${base.replace(/-/g, '_')}.py`]: `# Settings for the ${ruleId} client.\nDEBUG = False\n${snake} = ${py}\n`,
    [`deploy/${base}.yaml`]: [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      `  name: ${base.toLowerCase().slice(0, 50)}`,
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - name: app',
      '          image: app:1.0',
      '          env:',
      `            - name: ${snake}`,
      `              value: ${yamlValue}`,
      '',
    ].join('\n'),
    [`config/${base}.json`]: `${JSON.stringify({ service: ruleId, [camel]: secret, retries: 3 }, null, 2)}\n`,
  };
}

function parseArguments(argv: string[]): { tomlPath: string; seed: number; perRule: number; verbose: boolean } {
  let tomlPath = '';
  let seed = 20261201;
  let perRule = 2;
  let verbose = false;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === '--seed') seed = Number(argv[++index]);
    else if (argument === '--per-rule') perRule = Number(argv[++index]);
    else if (argument === '--verbose') verbose = true;
    else tomlPath = argument;
  }
  if (!tomlPath || !Number.isInteger(seed) || !Number.isInteger(perRule) || perRule < 1) {
    throw new Error('usage: node out/test/quality/gitleaksRecall.js /path/to/gitleaks.toml [--seed N] [--per-rule N] [--verbose]');
  }
  return { tomlPath, seed, perRule, verbose };
}

function readRules(tomlPath: string, random: () => number): { rules: Rule[]; global: Allowlist[] } {
  const config = parse(fs.readFileSync(tomlPath, 'utf8')) as Record<string, unknown>;
  const global = [...readAllowlists(config.allowlist), ...readAllowlists(config.allowlists)];
  const rawRules = Array.isArray(config.rules) ? (config.rules as Record<string, unknown>[]) : [];
  if (rawRules.length === 0) throw new Error(`${tomlPath}: no [[rules]] found`);
  const rules: Rule[] = [];
  for (const raw of rawRules) {
    const rule: Rule = {
      id: String(raw.id),
      entropy: typeof raw.entropy === 'number' ? raw.entropy : 0,
      secretGroup: typeof raw.secretGroup === 'number' ? raw.secretGroup : undefined,
      allowlists: readAllowlists(raw.allowlists ?? raw.allowlist),
      path: typeof raw.path === 'string' ? raw.path : undefined,
    };
    rules.push(rule);
    if (typeof raw.regex !== 'string') {
      rule.skipped = 'no regex';
      continue;
    }
    const translated = translate(raw.regex);
    if ('error' in translated) {
      rule.skipped = translated.error;
      continue;
    }
    rule.verifier = new RegExp(translated.pattern, translated.flags);
    try {
      // Generated as written, without the i flag: a spelling the pattern gives is accepted either way.
      // A dot between letters (`hooks.slack.com`) is meant literally even where the rule left it unescaped.
      const literalDots = translated.pattern.replace(/(?<=[a-z])\.(?=[a-z])/g, '\\.');
      const generator = new RandExp(new RegExp(literalDots));
      generator.max = 40;
      generator.randInt = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
      rule.generator = generator;
    } catch (error) {
      rule.skipped = `randexp cannot read it: ${(error as Error).message}`;
    }
  }
  return { rules, global };
}

function generate(rule: Rule, global: Allowlist[], count: number, seen: Set<string>): { secrets: string[]; reason?: string } {
  const secrets: string[] = [];
  const rejected = new Map<string, number>();
  const reject = (reason: string): void => void rejected.set(reason, (rejected.get(reason) ?? 0) + 1);
  for (let attempt = 0; attempt < 400 && secrets.length < count; attempt++) {
    const text = rule.generator!.gen();
    const match = rule.verifier!.exec(text);
    if (!match) {
      reject('sample does not match its own rule');
      continue;
    }
    const secret = secretOf(match, rule.secretGroup);
    if (secret.length < 6) reject('too short');
    else if (seen.has(secret.toLowerCase())) reject('duplicate');
    else if (entropy(secret) < rule.entropy) reject('below entropy');
    else if (allowed(rule.allowlists, secret, match[0], text) || allowed(global, secret, match[0], text)) reject('allowlisted');
    else {
      seen.add(secret.toLowerCase());
      secrets.push(secret);
    }
  }
  const reason = [...rejected].sort((a, b) => b[1] - a[1])[0]?.[0];
  return { secrets, reason };
}

/** The secret, and each run of 16+ letters and digits in it: the full-text index stores words, not punctuated tokens. */
function needles(secret: string): string[] {
  const out = new Set([secret.toLowerCase()]);
  for (const run of secret.match(/[A-Za-z0-9]{16,}/g) ?? []) out.add(run.toLowerCase());
  return [...out];
}

/** Indexes `files` in a fresh folder with the real engine and returns the planted secrets that reached the database. */
async function indexAndScan(
  files: Record<string, string>,
  planted: Planted[],
): Promise<{ reached: Set<Planted>; indexed: Set<string>; errors: number }> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pk-gitleaks-')));
  const dbPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pk-gitleaks-db-')), 'index.sqlite');
  try {
    const control = 'src/harmless.ts';
    const all = { ...files, [control]: 'export function apiKey(): string {\n  return process.env.API_KEY ?? "";\n}\n' };
    for (const [relative, text] of Object.entries(all)) {
      fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
      fs.writeFileSync(path.join(root, relative), text);
    }
    const engine = await ProjectEngine.open({ root, ports: nodePorts(), dbPath });
    const report = await engine.sync();
    const indexed = new Set(engine.store.catalog.files().keys());
    const cells = databaseCells(engine.store.database);
    await engine.close();
    const bytes = fs.readFileSync(dbPath).toString('latin1').toLowerCase();
    if (!indexed.has(control)) throw new Error('the harmless control file was not indexed: the run proves nothing');
    const reached = new Set<Planted>();
    for (const item of planted) {
      const strings = needles(item.secret);
      const inDatabase = strings.some((needle) => bytes.includes(needle) || cells.some((cell) => cell.includes(needle)));
      if (inDatabase || item.files.some((file) => indexed.has(file))) reached.add(item);
    }
    return { reached, indexed, errors: report.errors.length };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(path.dirname(dbPath), { recursive: true, force: true });
  }
}

function percent(part: number, whole: number): string {
  return `${((part / Math.max(1, whole)) * 100).toFixed(1)}%`;
}

async function main(): Promise<void> {
  const options = parseArguments(process.argv.slice(2));
  const random = seededRandom(options.seed);
  const { rules, global } = readRules(options.tomlPath, random);
  const withRegex = rules.filter((rule) => rule.skipped !== 'no regex');
  const translated = rules.filter((rule) => rule.generator);
  const notGenerated: { id: string; reason: string }[] = [];
  const planted: Planted[] = [];
  const files: Record<string, string> = {};
  const seen = new Set<string>();
  for (const rule of translated) {
    const { secrets, reason } = generate(rule, global, options.perRule, seen);
    if (secrets.length === 0) notGenerated.push({ id: rule.id, reason: reason ?? 'nothing generated' });
    secrets.forEach((secret, index) => {
      const written = plantings(rule.id, secret, index);
      Object.assign(files, written);
      planted.push({ rule: rule.id, secret, files: Object.keys(written) });
    });
  }

  // The generator's own text is not planted as such: for keyword rules it is mostly noise that no
  // file holds (`adafruit \":'\`<value>`), so the four syntaxes are the measure.
  const main = await indexAndScan(files, planted);

  console.log(
    `gitleaks rules: ${rules.length} total, ${withRegex.length} with a regex, ${translated.length} translated, ` +
      `${withRegex.length - translated.length} not translated, ${notGenerated.length} translated but no acceptable sample`,
  );
  for (const rule of withRegex.filter((item) => !item.generator)) console.log(`  not translated: ${rule.id} (${rule.skipped})`);
  for (const item of notGenerated) console.log(`  no sample: ${item.id} (${item.reason})`);
  const rulesPlanted = new Set(planted.map((item) => item.rule)).size;
  console.log(`secrets generated: ${planted.length} from ${rulesPlanted} rules, ${Object.keys(files).length} files (seed ${options.seed})`);
  const missedRules = new Set([...main.reached].map((item) => item.rule));
  const caught = planted.length - main.reached.size;
  console.log(
    `reached the database: ${main.reached.size}/${planted.length} secrets, from ${missedRules.size}/${rulesPlanted} rules; ` +
      `caught ${caught}/${planted.length} (${percent(caught, planted.length)})`,
  );
  const secretsOnly = planted.filter((item) => !identifierRule(item.rule));
  const caughtSecrets = secretsOnly.filter((item) => !main.reached.has(item)).length;
  const missedSecretRules = [...missedRules].filter((id) => !identifierRule(id));
  console.log(
    `without identifier rules (client ids, public keys): caught ${caughtSecrets}/${secretsOnly.length} ` +
      `(${percent(caughtSecrets, secretsOnly.length)}); ${missedSecretRules.length} rules missed`,
  );
  const bySyntax = new Map<string, number>();
  for (const item of main.reached) {
    for (const file of item.files.filter((name) => main.indexed.has(name))) {
      const syntax = path.extname(file).slice(1);
      bySyntax.set(syntax, (bySyntax.get(syntax) ?? 0) + 1);
    }
  }
  console.log(`indexed files holding a secret, by syntax: ${JSON.stringify(Object.fromEntries(bySyntax))}`);
  if (main.errors > 0) console.log(`index errors: ${main.errors}`);
  const rulePaths = new Map(rules.map((rule) => [rule.id, rule.path]));
  for (const id of [...missedRules].sort()) {
    const items = [...main.reached].filter((item) => item.rule === id);
    const total = planted.filter((item) => item.rule === id).length;
    const syntaxes = new Set(
      items.flatMap((item) => item.files.filter((name) => main.indexed.has(name)).map((name) => path.extname(name).slice(1))),
    );
    const scope = rulePaths.get(id) ? ` [gitleaks scans it only in paths ${rulePaths.get(id)}]` : '';
    const kind = identifierRule(id) ? ' (identifier)' : '';
    console.log(
      `  missed ${id}${kind}: ${items.length}/${total} secret(s), indexed as ${[...syntaxes].join(',') || 'none (found in cells)'}; ` +
        `shape ${shape(items[0].secret)}${scope}`,
    );
  }
  if (options.verbose) {
    for (const item of planted.filter((entry) => !main.reached.has(entry))) console.log(`  caught ${item.rule}: ${shape(item.secret)}`);
  }
  console.log(
    JSON.stringify({
      rules: rules.length,
      withRegex: withRegex.length,
      translated: translated.length,
      generated: planted.length,
      reached: main.reached.size,
      caughtWithoutIdentifiers: caughtSecrets,
      withoutIdentifiers: secretsOnly.length,
      missedRules: [...missedRules].sort(),
    }),
  );
}

main().catch((error: unknown) => {
  console.error(`gitleaks recall: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
