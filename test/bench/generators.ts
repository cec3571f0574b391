import { Random } from './random';
import { adjectives, classSuffixes, errorPrefixes, nouns, people, statuses, verbs } from './vocabulary';

/** What one generated file holds that the benchmark queries can ask for. */
export interface GeneratedFile {
  text: string;
  /** Literal error messages that occur verbatim in the file. */
  phrases: string[];
  /** Names of declarations (classes, functions, methods) made in the file. */
  symbols: string[];
  /** Content words of the module's doc comment, for 2–3 word full-text queries. */
  words: string[];
}

export type CorpusLanguage = 'typescript' | 'python' | 'go';

// ---- word choice ----------------------------------------------------------------------------

/**
 * Word frequencies in real code are skewed (a few words everywhere, a long tail of rare ones)
 * and clustered (each package has its own domain words). Words are drawn with a power-law
 * weight from a fixed shuffled order, half of the nouns from the current package's domain.
 */
function shuffled(words: readonly string[], seed: number): string[] {
  const rng = new Random(seed);
  const copy = [...words];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

const nounOrder = shuffled([...new Set(nouns)], 11);
const verbOrder = shuffled([...new Set(verbs)], 12);
const adjectiveOrder = shuffled([...new Set(adjectives)], 13);

const skewed = (rng: Random, words: readonly string[]): string => words[Math.floor(rng.next() ** 2.2 * words.length)];

/**
 * Project-specific words (product, team and domain names) make up the long tail of a real
 * codebase's vocabulary: made-up but pronounceable, deterministic, never a secret-like name.
 */
const reservedWords = new Set(
  `goto func case type else range select default import return struct interface package continue defer
break const chan from with while yield lambda async await class elif except finally global nonlocal raise assert none true false
void this super enum delete typeof var static public private protected readonly declare namespace module require extends
implements instanceof debugger switch throw catch export function null undefined abstract fallthrough`.split(/\s+/),
);

function syntheticWords(count: number, seed: number): string[] {
  const rng = new Random(seed);
  const onsets = ['b', 'br', 'c', 'ch', 'd', 'f', 'g', 'gr', 'k', 'l', 'm', 'n', 'p', 'pr', 'qu', 'r', 's', 'st', 't', 'tr', 'v', 'w', 'z'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou'];
  const codas = ['', '', 'n', 'r', 's', 'l', 'x', 'th', 'm', 'nd', 'rk'];
  const out = new Set<string>();
  while (out.size < count) {
    let word = '';
    for (let i = rng.int(2, 3); i > 0; i--) word += rng.pick(onsets) + rng.pick(vowels) + (i === 1 ? rng.pick(codas) : '');
    if (word.length >= 4 && word.length <= 11 && !/key|token|pass|secret|auth|cred/.test(word) && !reservedWords.has(word)) out.add(word);
  }
  return [...out];
}

const longTail = syntheticWords(2400, 14);

interface Domain {
  common: readonly string[];
  rare: readonly string[];
}

let domain: Domain = { common: nounOrder, rare: longTail };

/** The vocabulary of package number `index` (deterministic): 48 common nouns and 200 words of its own. */
export function domainWords(index: number): Domain {
  return { common: shuffled(nounOrder, 1000 + index).slice(0, 48), rare: shuffled(longTail, 2000 + index).slice(0, 200) };
}

/** Sets the vocabulary the next generated file draws from. */
export function setDomain(words: Domain): void {
  domain = words;
}

/** A noun: a third from the package's own words, a third from its common nouns, a third from all nouns. */
export function pickNoun(rng: Random): string {
  const roll = rng.next();
  return roll < 0.33 ? skewed(rng, domain.rare) : roll < 0.66 ? skewed(rng, domain.common) : skewed(rng, nounOrder);
}

const pickVerb = (rng: Random): string => skewed(rng, verbOrder);
const pickAdjective = (rng: Random): string => skewed(rng, adjectiveOrder);

// ---- naming ---------------------------------------------------------------------------------

const cap = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
export const camel = (parts: string[]): string => parts[0] + parts.slice(1).map(cap).join('');
export const pascal = (parts: string[]): string => parts.map(cap).join('');
export const snake = (parts: string[]): string => parts.join('_');
export const kebab = (parts: string[]): string => parts.join('-');

function thirdPerson(verb: string): string {
  if (/(s|sh|ch|x|z)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

function plural(noun: string): string {
  if (/(s|sh|ch|x|z)$/.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/** Shared state while one file is generated. */
class FileContext {
  readonly phrases: string[] = [];
  readonly symbols: string[] = [];
  readonly fields: string[][];
  readonly types: string[];

  constructor(
    readonly rng: Random,
    readonly topic: string[],
  ) {
    this.fields = [
      ['id'],
      ['status'],
      ...rng.sample(domain.common, 5).map((noun) => [pickAdjective(rng), noun]),
      [topic[0], 'id'],
      ['created', 'at'],
      ['amount'],
    ];
    this.types = [
      pascal([...topic, 'record']),
      pascal([topic[1], pickNoun(rng)]),
      pascal([pickAdjective(rng), topic[0]]),
      pascal([pickNoun(rng), 'options']),
    ];
  }

  noun(): string {
    return this.rng.chance(0.3) ? this.rng.pick(this.topic) : pickNoun(this.rng);
  }

  sentence(): string {
    const r = this.rng;
    switch (r.int(0, 7)) {
      case 0:
        return `${cap(thirdPerson(pickVerb(r)))} the ${pickAdjective(r)} ${this.noun()} ${this.noun()} before the ${this.noun()} ${this.noun()} changes.`;
      case 1:
        return `Keeps ${plural(this.noun())} in sync with the ${pickAdjective(r)} ${this.noun()}; see ${pascal([this.noun(), r.pick(classSuffixes)])}.`;
      case 2:
        return `Returns nothing when the ${this.noun()} has no ${pickAdjective(r)} ${plural(this.noun())} left.`;
      case 3:
        return `TODO(${r.pick(people)}): ${pickVerb(r)} the ${this.noun()} lazily once the ${this.noun()} ${this.noun()} migration lands.`;
      case 4:
        return `NOTE: the ${this.noun()} ${this.noun()} must stay below ${r.int(2, 64) * 16} entries per ${this.noun()}.`;
      case 5:
        return `The ${pickAdjective(r)} path ${thirdPerson(pickVerb(r))} every ${this.noun()} exactly once — retries are idempotent.`;
      case 6:
        return `Callers ${pickVerb(r)} the ${this.noun()} first; otherwise the ${this.noun()} ${this.noun()} is ${r.pick(statuses)}.`;
      default:
        return `Used by the ${pickAdjective(r)} ${this.noun()} worker to ${pickVerb(r)} ${plural(this.noun())} in batches of ${r.int(8, 512)}.`;
    }
  }

  errorMessage(): string {
    const r = this.rng;
    const message = `${r.pick(errorPrefixes)} ${pickVerb(r)} ${pickAdjective(r)} ${this.noun()} for ${this.noun()} ${pickNoun(r)}`;
    if (this.phrases.length < 8) this.phrases.push(message);
    return message;
  }

  functionParts(): string[] {
    const r = this.rng;
    const parts = [pickVerb(r)];
    if (r.chance(0.6)) parts.push(pickAdjective(r));
    parts.push(this.noun());
    if (r.chance(0.5)) parts.push(pickNoun(r));
    return parts;
  }

  className(): string[] {
    const r = this.rng;
    const parts = r.chance(0.3) ? [pickAdjective(r), this.noun()] : [this.noun(), pickNoun(r)];
    return [...parts, r.pick(classSuffixes).toLowerCase()];
  }

  remember(symbol: string): void {
    this.symbols.push(symbol);
  }
}

/** Builds text line by line and knows its size. */
class Lines {
  private readonly out: string[] = [];
  bytes = 0;

  push(...lines: string[]): void {
    for (const line of lines) {
      this.out.push(line);
      this.bytes += Buffer.byteLength(line) + 1;
    }
  }

  indent(prefix: string, lines: string[]): string[] {
    return lines.map((line) => (line ? prefix + line : line));
  }

  text(): string {
    return `${this.out.join('\n')}\n`;
  }
}

// ---- TypeScript -----------------------------------------------------------------------------

function tsStatements(ctx: FileContext, count: number, depth = 0): string[] {
  const r = ctx.rng;
  const lines: string[] = [];
  const field = () => camel(r.pick(ctx.fields));
  for (let i = 0; i < count; i++) {
    const v = camel([pickAdjective(r), ctx.noun()]);
    switch (r.int(0, 11)) {
      case 0:
        lines.push(`const ${v} = await this.${camel([ctx.noun(), 'client'])}.${camel(ctx.functionParts())}(${camel([ctx.noun(), 'id'])});`);
        break;
      case 1:
        lines.push(`if (!${v}) {`, `  throw new ${pascal([ctx.noun(), 'error'])}('${ctx.errorMessage()}');`, '}');
        break;
      case 2:
        if (depth < 2) {
          lines.push(`for (const item of ${camel([ctx.noun(), 'items'])}) {`, `  if (item.${field()} === '${r.pick(statuses)}') continue;`);
          lines.push(...tsStatements(ctx, r.int(1, 2), depth + 1).map((line) => `  ${line}`), '}');
        } else lines.push(`total += item.${field()} * ${r.int(2, 100)};`);
        break;
      case 3:
        lines.push(
          `this.logger.${r.pick(['info', 'debug', 'warn'])}(\`${pickVerb(r)} ${ctx.noun()} \${${camel([ctx.noun(), 'id'])}} in \${Date.now() - started} ms\`);`,
        );
        break;
      case 4:
        lines.push(
          `const ${v} = ${camel([ctx.noun(), 'list'])}.filter((entry) => entry.${field()} > ${r.int(0, 900)}).map((entry) => entry.${field()});`,
        );
        break;
      case 5:
        lines.push(
          'try {',
          ...tsStatements(ctx, 1, depth + 1).map((line) => `  ${line}`),
          '} catch (error) {',
          `  this.logger.warn('${ctx.errorMessage()}', error);`,
          '}',
        );
        break;
      case 6:
        lines.push(`// ${ctx.sentence()}`);
        break;
      case 7:
        lines.push(
          `const ${v}Url = \`/api/v${r.int(1, 3)}/${plural(ctx.noun())}/\${${camel([ctx.noun(), 'id'])}}/${kebab([pickAdjective(r), ctx.noun()])}\`;`,
        );
        break;
      case 8:
        lines.push(
          `switch (${v}.status) {`,
          `  case '${r.pick(statuses)}':`,
          `    return this.${camel(ctx.functionParts())}(${v});`,
          `  case '${r.pick(statuses)}':`,
          `    break;`,
          `  default:`,
          `    this.metrics.increment('${snake([ctx.noun(), ctx.noun()])}.${r.pick(statuses)}');`,
          '}',
        );
        break;
      case 9:
        lines.push(
          `await this.${camel([ctx.noun(), 'store'])}.${camel(ctx.functionParts())}({ ${field()}: ${v}, ${field()}: ${r.int(1, 5000)}, reason: '${pickAdjective(r)} ${ctx.noun()}' });`,
        );
        break;
      case 10:
        lines.push(
          `const ${v}Limit = this.config.get<number>('${ctx.noun()}.${camel([pickAdjective(r), ctx.noun(), 'limit'])}') ?? ${r.int(1, 64) * 8};`,
        );
        break;
      default:
        lines.push(`let ${v}Count = ${r.int(0, 3)};`, `${v}Count += ${camel([ctx.noun(), 'list'])}.length;`);
        break;
    }
  }
  return lines;
}

function tsFunction(ctx: FileContext, method: boolean): string[] {
  const r = ctx.rng;
  const name = camel(ctx.functionParts());
  ctx.remember(name);
  const type = r.pick(ctx.types);
  const params = [`${camel([ctx.noun(), 'id'])}: string`, `options: ${r.pick(ctx.types)} = {}`].slice(0, r.int(1, 2)).join(', ');
  const asyncWord = r.chance(0.6) ? 'async ' : '';
  const returns = asyncWord ? `Promise<${type} | undefined>` : `${type} | undefined`;
  const head = method
    ? `${r.chance(0.2) ? 'private ' : ''}${asyncWord}${name}(${params}): ${returns} {`
    : `export ${asyncWord}function ${name}(${params}): ${returns} {`;
  const body = ['const started = Date.now();', ...tsStatements(ctx, r.int(3, 10)), `return ${camel([pickAdjective(r), ctx.noun()])};`];
  return [
    `/**`,
    ` * ${ctx.sentence()}`,
    ...(r.chance(0.4) ? [` * ${ctx.sentence()}`] : []),
    ` */`,
    head,
    ...body.map((line) => `  ${line}`),
    '}',
  ];
}

function tsClass(ctx: FileContext, budgetBytes: number): string[] {
  const r = ctx.rng;
  const name = pascal(ctx.className());
  ctx.remember(name);
  const lines = [`/** ${ctx.sentence()} */`, `export class ${name}${r.chance(0.3) ? ` extends ${pascal([ctx.noun(), 'base'])}` : ''} {`];
  lines.push(`  private readonly cache = new Map<string, ${r.pick(ctx.types)}>();`, '');
  lines.push(
    `  constructor(private readonly ${camel([ctx.noun(), 'client'])}: ${pascal([ctx.noun(), 'client'])}, private readonly logger: Logger) {}`,
  );
  let bytes = 0;
  const methods = r.int(2, 8);
  for (let i = 0; i < methods && bytes < budgetBytes; i++) {
    const method = tsFunction(ctx, true).map((line) => `  ${line}`);
    bytes += method.reduce((sum, line) => sum + line.length + 1, 0);
    lines.push('', ...method);
  }
  lines.push('}');
  return lines;
}

export function generateTypeScript(rng: Random, topic: string[], targetBytes: number, importFrom: string[]): GeneratedFile {
  const ctx = new FileContext(rng, topic);
  const out = new Lines();
  const words = [topic[0], topic[1], pickVerb(rng), pickNoun(rng)];
  out.push('/**', ` * ${cap(words[0])} ${words[1]} helpers: ${words[2]} the ${words[3]} pipeline.`, ` * ${ctx.sentence()}`, ' */');
  for (const from of importFrom)
    out.push(
      `import { ${pascal([pickNoun(rng), rng.pick(classSuffixes).toLowerCase()])}, type ${pascal([pickNoun(rng), 'record'])} } from '${from}';`,
    );
  out.push(`import type { Logger } from '../logging/logger';`, '');
  out.push(`export const ${snake([pickAdjective(rng), topic[0], 'limit']).toUpperCase()} = ${rng.int(1, 100) * 10};`, '');
  out.push(
    `export interface ${ctx.types[0]} {`,
    ...ctx.fields
      .slice(0, rng.int(4, ctx.fields.length))
      .map(
        (field) =>
          `  ${camel(field)}${rng.chance(0.3) ? '?' : ''}: ${rng.pick(['string', 'number', 'boolean', 'Date', `${rng.pick(ctx.types)}[]`])};`,
      ),
    '}',
    '',
  );
  ctx.remember(ctx.types[0]);
  out.push(`export type ${ctx.types[1]} = '${rng.pick(statuses)}' | '${rng.pick(statuses)}' | '${rng.pick(statuses)}';`, '');
  while (out.bytes < targetBytes) {
    const remaining = targetBytes - out.bytes;
    out.push(...(rng.chance(0.45) ? tsClass(ctx, Math.min(remaining, 9000)) : tsFunction(ctx, false)), '');
  }
  return { text: out.text(), phrases: ctx.phrases, symbols: ctx.symbols, words: words.slice(0, 2).concat(words[3]) };
}

// ---- Python ---------------------------------------------------------------------------------

function pyStatements(ctx: FileContext, count: number, depth = 0): string[] {
  const r = ctx.rng;
  const lines: string[] = [];
  const field = () => snake(r.pick(ctx.fields));
  for (let i = 0; i < count; i++) {
    const v = snake([pickAdjective(r), ctx.noun()]);
    switch (r.int(0, 10)) {
      case 0:
        lines.push(`${v} = self._${snake([ctx.noun(), 'client'])}.${snake(ctx.functionParts())}(${snake([ctx.noun(), 'id'])})`);
        break;
      case 1:
        lines.push(`if ${v} is None:`, `    raise ${pascal([ctx.noun(), 'error'])}("${ctx.errorMessage()}")`);
        break;
      case 2:
        if (depth < 2) {
          lines.push(
            `for item in ${snake([ctx.noun(), 'items'])}:`,
            `    if item.${field()} == "${r.pick(statuses)}":`,
            '        continue',
          );
          lines.push(...pyStatements(ctx, r.int(1, 2), depth + 1).map((line) => `    ${line}`));
        } else lines.push(`total += item.${field()} * ${r.int(2, 100)}`);
        break;
      case 3:
        lines.push(
          `logger.${r.pick(['info', 'debug', 'warning'])}("${pickVerb(r)} ${ctx.noun()} %s in %d ms", ${snake([ctx.noun(), 'id'])}, elapsed)`,
        );
        break;
      case 4:
        lines.push(`${v} = [entry.${field()} for entry in ${snake([ctx.noun(), 'list'])} if entry.${field()} > ${r.int(0, 900)}]`);
        break;
      case 5:
        lines.push(
          'try:',
          ...pyBlock(ctx, depth + 1).map((line) => `    ${line}`),
          `except ${r.pick(['KeyError', 'ValueError', 'TimeoutError', 'OSError'])} as exc:`,
          `    logger.warning("${ctx.errorMessage()}: %s", exc)`,
        );
        break;
      case 6:
        lines.push(`# ${ctx.sentence()}`);
        break;
      case 7:
        lines.push(
          `${v}_url = f"/api/v${r.int(1, 3)}/${plural(ctx.noun())}/{${snake([ctx.noun(), 'id'])}}/${kebab([pickAdjective(r), ctx.noun()])}"`,
        );
        break;
      case 8:
        lines.push(`self._metrics.increment("${snake([ctx.noun(), ctx.noun()])}.${r.pick(statuses)}", ${field()}=${v})`);
        break;
      case 9:
        lines.push(`${v}_limit = self._config.get("${ctx.noun()}.${snake([pickAdjective(r), ctx.noun(), 'limit'])}", ${r.int(1, 64) * 8})`);
        break;
      default:
        lines.push(`${v}_count = len(${snake([ctx.noun(), 'list'])}) + ${r.int(0, 3)}`);
        break;
    }
  }
  return lines;
}

/** A block body that is never only comments (Python needs a statement). */
function pyBlock(ctx: FileContext, depth: number): string[] {
  const lines = pyStatements(ctx, 1, depth);
  if (lines.every((line) => line.startsWith('#')))
    lines.push(`${snake([pickAdjective(ctx.rng), ctx.noun()])} = self._cache.get(${snake([ctx.noun(), 'id'])})`);
  return lines;
}

function pyFunction(ctx: FileContext, method: boolean): string[] {
  const r = ctx.rng;
  const name = snake(ctx.functionParts());
  ctx.remember(name);
  const params = [
    ...(method ? ['self'] : []),
    `${snake([ctx.noun(), 'id'])}: str`,
    ...(r.chance(0.5) ? [`${snake([pickAdjective(r), 'limit'])}: int = ${r.int(1, 50)}`] : []),
  ];
  const decorators = method && r.chance(0.15) ? ['@retry(attempts=3)'] : [];
  const asyncWord = r.chance(0.25) ? 'async ' : '';
  return [
    ...decorators,
    `${asyncWord}def ${name}(${params.join(', ')}) -> ${r.pick(ctx.types)} | None:`,
    `    """${ctx.sentence()}"""`,
    '    started = time.monotonic()',
    ...pyStatements(ctx, r.int(3, 10)).map((line) => `    ${line}`),
    `    return ${snake([pickAdjective(r), ctx.noun()])}`,
  ];
}

function pyClass(ctx: FileContext, budgetBytes: number): string[] {
  const r = ctx.rng;
  const name = pascal(ctx.className());
  ctx.remember(name);
  const lines = [`class ${name}${r.chance(0.3) ? `(${pascal([ctx.noun(), 'base'])})` : ''}:`, `    """${ctx.sentence()}"""`, ''];
  const client = snake([ctx.noun(), 'client']);
  lines.push(
    `    def __init__(self, ${client}: ${pascal([ctx.noun(), 'client'])}) -> None:`,
    `        self._${client} = ${client}`,
    `        self._cache: dict[str, ${r.pick(ctx.types)}] = {}`,
  );
  let bytes = 0;
  const methods = r.int(2, 8);
  for (let i = 0; i < methods && bytes < budgetBytes; i++) {
    const method = pyFunction(ctx, true).map((line) => `    ${line}`);
    bytes += method.reduce((sum, line) => sum + line.length + 1, 0);
    lines.push('', ...method);
  }
  return lines;
}

export function generatePython(rng: Random, topic: string[], targetBytes: number, importFrom: string[]): GeneratedFile {
  const ctx = new FileContext(rng, topic);
  const out = new Lines();
  const words = [topic[0], topic[1], pickVerb(rng), pickNoun(rng)];
  out.push(
    `"""${cap(words[0])} ${words[1]} helpers: ${words[2]} the ${words[3]} pipeline.`,
    '',
    ctx.sentence(),
    '"""',
    '',
    'from __future__ import annotations',
    '',
    'import logging',
    'import time',
  );
  out.push('from dataclasses import dataclass');
  for (const from of importFrom)
    out.push(`from ${from} import ${pascal([pickNoun(rng), rng.pick(classSuffixes).toLowerCase()])}, ${pascal([pickNoun(rng), 'record'])}`);
  out.push(
    '',
    'logger = logging.getLogger(__name__)',
    '',
    `${snake([pickAdjective(rng), topic[0], 'limit']).toUpperCase()} = ${rng.int(1, 100) * 10}`,
    '',
    '',
  );
  ctx.remember(ctx.types[0]);
  out.push(
    '@dataclass',
    `class ${ctx.types[0]}:`,
    `    """${ctx.sentence()}"""`,
    '',
    ...ctx.fields
      .slice(0, rng.int(4, ctx.fields.length))
      .map((field) => `    ${snake(field)}: ${rng.pick(['str', 'int', 'bool', 'float', `list[${rng.pick(ctx.types)}]`])}`),
    '',
    '',
  );
  while (out.bytes < targetBytes) {
    const remaining = targetBytes - out.bytes;
    out.push(...(rng.chance(0.45) ? pyClass(ctx, Math.min(remaining, 9000)) : pyFunction(ctx, false)), '', '');
  }
  return { text: out.text(), phrases: ctx.phrases, symbols: ctx.symbols, words: words.slice(0, 2).concat(words[3]) };
}

// ---- Go -------------------------------------------------------------------------------------

function goStatements(ctx: FileContext, count: number, depth = 0): string[] {
  const r = ctx.rng;
  const lines: string[] = [];
  const field = () => pascal(r.pick(ctx.fields));
  for (let i = 0; i < count; i++) {
    const v = camel([pickAdjective(r), ctx.noun()]);
    switch (r.int(0, 10)) {
      case 0:
        lines.push(
          `${v}, err := s.${camel([ctx.noun(), 'client'])}.${pascal(ctx.functionParts())}(ctx, ${camel([ctx.noun(), 'ID'])})`,
          'if err != nil {',
          `\treturn nil, fmt.Errorf("${ctx.errorMessage()}: %w", err)`,
          '}',
          `_ = ${v}`,
        );
        break;
      case 1:
        lines.push(`if ${camel([ctx.noun(), 'ID'])} == "" {`, `\treturn nil, errors.New("${ctx.errorMessage()}")`, '}');
        break;
      case 2:
        if (depth < 2) {
          lines.push(
            `for _, item := range ${camel([ctx.noun(), 'items'])} {`,
            `\tif item.${field()} == "${r.pick(statuses)}" {`,
            '\t\tcontinue',
            '\t}',
          );
          lines.push(...goStatements(ctx, r.int(1, 2), depth + 1).map((line) => `\t${line}`), '}');
        } else lines.push(`total += item.${field()} * ${r.int(2, 100)}`);
        break;
      case 3:
        lines.push(
          `log.Printf("${pickVerb(r)} ${ctx.noun()} %s in %d ms", ${camel([ctx.noun(), 'ID'])}, time.Since(started).Milliseconds())`,
        );
        break;
      case 4:
        lines.push(
          `${v} := make([]string, 0, len(${camel([ctx.noun(), 'list'])}))`,
          `for _, entry := range ${camel([ctx.noun(), 'list'])} {`,
          `\tif entry.${field()} > ${r.int(0, 900)} {`,
          `\t\t${v} = append(${v}, entry.${field()})`,
          '\t}',
          '}',
        );
        break;
      case 5:
        lines.push(`// ${ctx.sentence()}`);
        break;
      case 6:
        lines.push(
          `${v}URL := fmt.Sprintf("/api/v${r.int(1, 3)}/${plural(ctx.noun())}/%s/${kebab([pickAdjective(r), ctx.noun()])}", ${camel([ctx.noun(), 'ID'])})`,
          `_ = ${v}URL`,
        );
        break;
      case 7:
        lines.push(`s.metrics.Increment("${snake([ctx.noun(), ctx.noun()])}.${r.pick(statuses)}")`);
        break;
      case 8:
        lines.push(
          `${v}Limit := s.config.Int("${ctx.noun()}.${snake([pickAdjective(r), ctx.noun(), 'limit'])}", ${r.int(1, 64) * 8})`,
          `_ = ${v}Limit`,
        );
        break;
      case 9:
        lines.push(
          `switch ${v}.Status {`,
          `case "${r.pick(statuses)}":`,
          `\treturn s.${pascal(ctx.functionParts())}(ctx, ${v})`,
          `case "${r.pick(statuses)}":`,
          '\tbreak',
          'default:',
          `\ts.metrics.Increment("${snake([ctx.noun(), 'unknown'])}")`,
          '}',
        );
        break;
      default:
        lines.push(`${v}Count := len(${camel([ctx.noun(), 'list'])}) + ${r.int(0, 3)}`, `_ = ${v}Count`);
        break;
    }
  }
  return lines;
}

function goFunction(ctx: FileContext, receiver: string | undefined): string[] {
  const r = ctx.rng;
  const exported = receiver !== undefined || r.chance(0.6);
  const name = exported ? pascal(ctx.functionParts()) : camel(ctx.functionParts());
  ctx.remember(name);
  const type = r.pick(ctx.types);
  const head = receiver
    ? `func (s *${receiver}) ${name}(ctx context.Context, ${camel([ctx.noun(), 'ID'])} string) (*${type}, error) {`
    : `func ${name}(ctx context.Context, ${camel([ctx.noun(), 'ID'])} string) (*${type}, error) {`;
  return [
    `// ${name}: ${ctx.sentence()}`,
    head,
    '\tstarted := time.Now()',
    ...goStatements(ctx, r.int(3, 10)).map((line) => `\t${line}`),
    `\treturn &${type}{}, nil`,
    '}',
  ];
}

function goStruct(ctx: FileContext, budgetBytes: number): string[] {
  const r = ctx.rng;
  const name = pascal(ctx.className());
  ctx.remember(name);
  const lines = [
    `// ${name}: ${ctx.sentence()}`,
    `type ${name} struct {`,
    `\t${camel([ctx.noun(), 'client'])} *${pascal([ctx.noun(), 'client'])}`,
    `\tcache map[string]*${r.pick(ctx.types)}`,
    '\tmetrics Metrics',
    '\tconfig Config',
    '}',
  ];
  let bytes = 0;
  const methods = r.int(2, 8);
  for (let i = 0; i < methods && bytes < budgetBytes; i++) {
    const method = goFunction(ctx, name);
    bytes += method.reduce((sum, line) => sum + line.length + 1, 0);
    lines.push('', ...method);
  }
  return lines;
}

export function generateGo(rng: Random, topic: string[], targetBytes: number, packageName: string, importFrom: string[]): GeneratedFile {
  const ctx = new FileContext(rng, topic);
  const out = new Lines();
  const words = [topic[0], topic[1], pickVerb(rng), pickNoun(rng)];
  out.push(
    `// Package ${packageName}: ${words[0]} ${words[1]} helpers that ${words[2]} the ${words[3]} pipeline.`,
    `// ${ctx.sentence()}`,
    `package ${packageName}`,
    '',
  );
  out.push(
    'import (',
    '\t"context"',
    '\t"errors"',
    '\t"fmt"',
    '\t"log"',
    '\t"time"',
    '',
    ...importFrom.map((from) => `\t"${from}"`),
    ')',
    '',
  );
  ctx.remember(ctx.types[0]);
  out.push(
    `// ${ctx.types[0]}: ${ctx.sentence()}`,
    `type ${ctx.types[0]} struct {`,
    ...ctx.fields
      .slice(0, rng.int(4, ctx.fields.length))
      .map((field) => `\t${pascal(field)} ${rng.pick(['string', 'int64', 'bool', 'time.Time', `[]${rng.pick(ctx.types)}`])}`),
    '}',
    '',
  );
  while (out.bytes < targetBytes) {
    const remaining = targetBytes - out.bytes;
    out.push(...(rng.chance(0.45) ? goStruct(ctx, Math.min(remaining, 9000)) : goFunction(ctx, undefined)), '');
  }
  return { text: out.text(), phrases: ctx.phrases, symbols: ctx.symbols, words: words.slice(0, 2).concat(words[3]) };
}
