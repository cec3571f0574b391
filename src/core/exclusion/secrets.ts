/**
 * High-confidence secret detection over a file's decoded text. It runs on every indexed file, so
 * it is built for speed: one case-insensitive pass finds the rare candidates (vendor-token prefixes,
 * secret-like names before an assignment), which are then checked precisely; `indexOf` finds URLs
 * with credentials and a line-anchored pattern reads registry configuration files. Every
 * pattern has bounded repetition, so no input can make a scan super-linear, and no per-line
 * splitting is needed. A finding names the rule and the line, never the secret itself.
 */

import { anchoredTokens, vendorTokens } from './vendorTokens';

export type SecretRule =
  | 'private-key-block'
  | 'putty-private-key'
  | 'aws-access-key-id'
  | 'aws-secret-access-key'
  | 'google-api-key'
  | 'github-token'
  | 'slack-token'
  | 'slack-webhook'
  | 'stripe-key'
  | 'npm-token'
  | 'jwt'
  | 'npmrc-auth-token'
  | 'registry-password'
  | 'url-credentials'
  | 'azure-sas-token'
  | 'basic-auth-header'
  | 'bearer-token'
  | 'discord-bot-token'
  | 'command-line-credentials'
  | 'secret-assignment'
  | (typeof vendorTokens)[number]['rule']
  | (typeof anchoredTokens)[number]['rule'];

export interface SecretFinding {
  rule: SecretRule;
  /** 1-based line of the start of the secret (or of the private-key header). */
  line: number;
}

interface Hit {
  rule: SecretRule;
  index: number;
}

// --- Vendor token formats -----------------------------------------------------------------------

/**
 * The full formats, tried (sticky) only where the scan below found a prefix. Prefixes are exact
 * (`AKIA`, `ghp_`, `xoxb-`); lengths come from the vendors' published formats.
 */
const tokenPattern = new RegExp(
  [
    String.raw`(?<privateKey>-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----)`,
    String.raw`(?<putty>PuTTY-User-Key-File-\d{1,2}: )`,
    String.raw`(?<aws>\b(?:AKIA|ASIA)[A-Z0-9]{16}\b)`,
    String.raw`(?<google>\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-]))`,
    String.raw`(?<github>\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{60,255})\b)`,
    String.raw`(?<slack>\bxox[abeoprs]-[0-9A-Za-z]{1,40}(?:-[0-9A-Za-z]{1,64}){1,6})`,
    String.raw`(?<slackWebhook>hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,200})`,
    String.raw`(?<stripe>\b[rs]k_(?:live|test)_[0-9A-Za-z]{24,247}\b)`,
    String.raw`(?<npm>\bnpm_[A-Za-z0-9]{36}\b)`,
    // Header and claims are JSON objects, so both base64 segments open with `ey` (`{` encoded); the
    // signature may be empty (`alg: none`) and some issuers use the `+/` alphabet.
    String.raw`(?<jwt>\bey[A-Za-z0-9_\-]{10,2048}\.ey[A-Za-z0-9_\-+/]{10,8192}\.(?:[A-Za-z0-9_\-+/]{10,2048}={0,2})?)`,
    String.raw`(?<sas>\bsv=\d{4}-\d\d-\d\d&[^\s"'<>\\]{0,400}?\bsig=(?:[A-Za-z0-9+/]|%2[BbFf]){30,120}(?:%3[Dd]|=){0,2})`,
    String.raw`(?<basic>\bBasic[ \t]+[A-Za-z0-9+/]{12,400}={0,2}(?![A-Za-z0-9+/=]))`,
    String.raw`(?<bearer>\bBearer[ \t]+[A-Za-z0-9_.~+/\-]{20,2048}={0,2}(?![A-Za-z0-9_.~+/=\-]))`,
    ...vendorTokens.map((token, index) => `(?<vendor${index}>${token.prefix}${token.body})`),
  ].join('|'),
  'y',
);

const ruleByGroup: Record<string, SecretRule> = {
  privateKey: 'private-key-block',
  putty: 'putty-private-key',
  aws: 'aws-access-key-id',
  google: 'google-api-key',
  github: 'github-token',
  slack: 'slack-token',
  slackWebhook: 'slack-webhook',
  stripe: 'stripe-key',
  npm: 'npm-token',
  jwt: 'jwt',
  sas: 'azure-sas-token',
  basic: 'basic-auth-header',
  bearer: 'bearer-token',
  ...Object.fromEntries(vendorTokens.map((token, index) => [`vendor${index}`, token.rule])),
};
const vendorGroups = new Map(vendorTokens.map((token, index) => [`vendor${index}`, new RegExp(`^(?:${token.prefix})`)]));

/**
 * Documentation and fixtures use these in otherwise well-formed tokens (`AKIAIOSFODNN7EXAMPLE`).
 * Only all lower-case or all upper-case forms count: a random mixed-case body holds `YoUR` or
 * `fAkE` about once in 3,000 tokens, and a real token must not be taken for an example.
 */
const placeholderWords = ['example', 'xxxx', 'placeholder', 'your', 'dummy', 'fake', 'sample', 'redacted', 'abcdef'];
const tokenPlaceholderPattern = new RegExp(
  ['0000000', '1234567', ...placeholderWords, ...placeholderWords.map((word) => word.toUpperCase())].join('|'),
);
const tokenPrefixPattern = /^(?:AKIA|ASIA|AIza|gh[pousr]_|github_pat_|[rs]k_(?:live|test)_|npm_)/;

/** A base64 line of a key body: after a real newline or an escaped `\n`, quotes and `+` allowed. */
const keyBodyLinePattern = /^[\s'"`+,\\]*[A-Za-z0-9+/]{40,}={0,2}/;
const keyWindowChars = 800;
const keyWindowLines = 12;

/**
 * A header alone is documentation (`-----BEGIN RSA PRIVATE KEY-----` quoted in prose); a key is a
 * header followed, within a few lines, by a base64 body line. Lines may be separated by real
 * newlines or by the `\n` escapes of a key embedded in JSON or a string literal, and optional PEM
 * headers (`Proc-Type:`, `DEK-Info:`, PGP `Version:`) may come first.
 */
function hasKeyBody(text: string, headerEnd: number): boolean {
  const window = text.slice(headerEnd, headerEnd + keyWindowChars);
  const lines = window.split(/\\r\\n|\\n|\r?\n/, keyWindowLines);
  return lines.some((line) => keyBodyLinePattern.test(line));
}

function distinctCharacters(value: string): number {
  return new Set(value).size;
}

/** Extra checks for a format match, so that placeholders and prose are not reported. */
function acceptToken(rule: SecretRule, match: string, text: string, end: number): boolean {
  switch (rule) {
    case 'private-key-block':
      return hasKeyBody(text, end);
    case 'putty-private-key':
      return true;
    case 'jwt':
      // Base64 of real JSON varies; `eyaaaaaaaaaa.eyaaaaaaaaaa.` in a test of a parser does not.
      return distinctCharacters(match) >= 12;
    case 'slack-token': {
      // Real tokens carry a numeric team/user id or a long random segment; `xoxb-your-token` does not.
      if (match.length < 30 || tokenPlaceholderPattern.test(match)) return false;
      return /-\d{6,}-/.test(match) || /-(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{20,}/.test(match);
    }
    case 'slack-webhook':
      return !/xxxx|0000000/i.test(match);
    case 'azure-sas-token':
      return !/xxxx|<|\$\{|\{\{/i.test(match);
    case 'basic-auth-header':
      return isBasicCredential(match.replace(/^Basic[ \t]+/, ''));
    case 'bearer-token':
      return isSecretLikeValue(match.replace(/^Bearer[ \t]+/, ''), 20);
    default: {
      const body = match.replace(tokenPrefixPattern, '');
      return !tokenPlaceholderPattern.test(body) && distinctCharacters(body) >= 8;
    }
  }
}

/** `Basic dXNlcjpwYXNz`: base64 of `user:password`, where the password must itself look like a secret. */
function isBasicCredential(encoded: string): boolean {
  const decoded = Buffer.from(encoded, 'base64').toString('latin1');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || /[^\x20-\x7e]/.test(decoded)) return false;
  return isSecretLikeValue(decoded.slice(colon + 1), 8);
}

/** The vendor token starting exactly at `index`, if a valid one does. */
function tokenAt(text: string, index: number): SecretRule | undefined {
  tokenPattern.lastIndex = index;
  const match = tokenPattern.exec(text);
  if (!match) return undefined;
  const groups = match.groups as Record<string, string | undefined>;
  const group = Object.keys(ruleByGroup).find((name) => groups[name] !== undefined) as string;
  const rule = ruleByGroup[group];
  const vendorPrefix = vendorGroups.get(group);
  if (vendorPrefix) return acceptVendorToken(match[0].replace(vendorPrefix, '')) ? rule : undefined;
  return acceptToken(rule, match[0], text, index + match[0].length) ? rule : undefined;
}

/** A prefixed token's body: no documentation filler, varied enough to be random. */
function acceptVendorToken(body: string): boolean {
  return !tokenPlaceholderPattern.test(body) && distinctCharacters(body) >= 8 && !/(.)\1{7}/.test(body);
}

/**
 * The scan form of every prefix, after one shared word boundary: candidates only, checked exactly
 * by `tokenAt`. One `\b` before the whole group instead of one per prefix makes the scan ~3x
 * faster (measured 150 vs 430 ms over 5.5 MB of TypeScript), since most positions fail it first.
 */
const vendorPrefixes = vendorTokens.map((token) => token.prefix.replace(/^\\b/, '')).join('|');
const vendorPrefixScan = String.raw`\b(?:sv=\d|Basic[ \t]|Bearer[ \t]|${vendorPrefixes})`;
const tokenPrefixScanPattern = new RegExp(
  String.raw`A(?:KIA|SIA|Iza)|g(?:h[pousr]_|ithub_pat_)|xox[abeoprs]-|hooks\.slack|[rs]k_(?:live|test)_|npm_|\bey(?=[A-Za-z0-9_\-]{10})|${vendorPrefixScan}`,
  'g',
);

/**
 * The vendor rule for a token inside an assigned value or a URL password, so `auth: 'ghp_…'` is
 * reported as the GitHub token it is rather than as a generic assignment.
 */
function tokenWithin(value: string): SecretRule | undefined {
  tokenPrefixScanPattern.lastIndex = 0;
  for (let match = tokenPrefixScanPattern.exec(value); match; match = tokenPrefixScanPattern.exec(value)) {
    const rule = tokenAt(value, match.index);
    if (rule) return rule;
  }
  return undefined;
}

// --- Secret-like assignments -------------------------------------------------------------------

/**
 * The single scan over the text. It stops at two kinds of candidate, both rare in ordinary code:
 * a vendor-token prefix (checked case-sensitively afterwards), and a secret-like word that ends a
 * name and is followed by an assignment-like operator. The optional qualifier keeps
 * `SECRET_KEY_BASE` and `tokenValue`; anything else after the word (`tokenizer`, `secretName`,
 * `passwordHash`, `tokenUrl`) is not a secret name. One combined, case-insensitive pass beats
 * separate passes for tokens and names; alternatives are factored by their first letters, which
 * lets the regex engine skip faster. With the 45 vendor prefixes the whole check measured 55 MB/s
 * of CPU on this project's sources and 65 MB/s on TypeScript's .d.ts files (74 and 144 before).
 */
const candidatePattern = new RegExp(
  String.raw`((?:p(?:ass(?:word|wd|phrase)?|wd)|secret|token|key|auth|credentials?)` +
    String.raw`(?:[_.\-]?(?:value|base|b64|base64|hex|str|string|raw|plain|text))?` +
    // What may follow the name: an operator (`=`, `:`, `?=`, `.=`, `=>`, `>` ending an XML start
    // tag), a type and `=`, a quoted name followed by a comma (a function argument or a JSON
    // name/value pair), or a YAML `value:` on the next line (a Kubernetes `env` entry).
    String.raw`(?=\\?["'\`]?\]?[ \t]{0,8}(?:[:=!>]|\+=|\?=|\.=)|[ \t]{1,8}[A-Za-z_][\w.[\]*]{0,30}[ \t]*=(?!=)|\\?["'\`][ \t]*,` +
    String.raw`|["'\`]?[ \t]*\r?\n[ \t]+(?:-[ \t]+)?value[ \t]*:))` +
    String.raw`|A(?:KIA|SIA|Iza)|g(?:h[pousr]_|ithub_pat_)|xox[abeoprs]-|-{4,5} ?BEGIN|PuTTY-User|hooks\.slack` +
    String.raw`|[rs]k_(?:live|test)_|npm_|eyJ` +
    String.raw`|${vendorPrefixScan}`,
  'gi',
);

const keywordPattern = /^(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|auth|credentials?)/i;

/**
 * The rest of an assignment after the name: an optional closing quote or bracket, an optional type
 * (`apiKey: string =`, Go `token string =`), the operator, then a quoted or bare literal.
 */
const assignmentTailPattern = new RegExp(
  // A quoted name and a comma (`setProperty("X_TOKEN", "…")`, `{"name": "X_TOKEN", "value": "…"}`).
  String.raw`(?:\\?["'\`][ \t]*,[ \t]*(?:\\?["']value\\?["'][ \t]*:)?` +
    // Or the closing quote or bracket of the name, then a type and `=`, an operator, a `:` whose
    // value may start on the next line (YAML), or a Kubernetes `value:` on the next line.
    String.raw`|\\?["'\`]?\]?(?:[ \t]*:[ \t]*[A-Za-z_$][\w$.<>[\]| ]{0,40}?[ \t]*=(?![=>])|[ \t]+[A-Za-z_][\w.[\]*]{0,30}[ \t]*=(?![=>])` +
    String.raw`|[ \t]*(?:::?=|=>|===?|!==?|\?\?=|\|\|=|\+=|\?=|\.=|=|>)|[ \t]*:(?:[ \t]*\r?\n[ \t]+)?` +
    String.raw`|[ \t]*\r?\n[ \t]+(?:-[ \t]+)?value[ \t]*:))` +
    // Then, optionally, an expression whose fallback is the literal (`process.env.X || "…"`).
    String.raw`[ \t]*(?:[A-Za-z_$][\w$.]{0,60}(?:\[[^\]\n]{1,40}\]|\([^)\n]{0,60}\))?[ \t]*(?:\|\||\?\?|\bor\b|\?:)[ \t]*)?` +
    // Then a quoted literal (also with the escaped quotes of a string inside JSON) or a bare one.
    String.raw`(?:[rbuf@]?(?:"(?<double>[^"\n\\]{1,4096})"|'(?<single>[^'\n\\]{1,4096})'|\`(?<backtick>[^\`\n\\$]{1,4096})\`)` +
    String.raw`|\\"(?<escaped>[^"\n\\]{1,4096})\\"|(?<bare>[^\s"'\`,;#<>(){}[\]\\][^\s"'\`,;<>(){}[\]\\]{0,4095})(?=[\s,;<\\]|$))`,
  'y',
);

/** Words that make `…key` a secret; `primaryKey`, `cacheKey`, `sortKey`, `publicKey` are not. */
const keyQualifiers = new Set([
  'api',
  'access',
  'secret',
  'private',
  'signing',
  'sign',
  'encryption',
  'encrypt',
  'crypt',
  'master',
  'app',
  'client',
  'consumer',
  'account',
  'subscription',
  'shared',
  'sharedaccess',
  'hmac',
  'jwt',
  'auth',
  'license',
  'service',
  'storage',
  'admin',
  'root',
  'deploy',
  'webhook',
  'session',
  'cookie',
]);

/** Keywords that must stand alone as a word: `bypass`, `compass`, `oauth`, `cwd` are not secrets. */
const wholeWordKeywords = new Set(['pass', 'pwd', 'auth']);

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}
function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * The lower-case word just before `index` in an identifier, and whether `index` starts a new word
 * (after `_`, `-`, `.`, a non-identifier character, or a camelCase boundary) or continues one
 * (`apikey`, `DBPASSWORD`, `monkey`).
 */
function wordBefore(text: string, index: number): { word: string; joined: boolean; joinedPrefix: string } {
  const keywordUpper = isUpper(text.charCodeAt(index));
  const previous = index > 0 ? text.charCodeAt(index - 1) : -1;
  if (previous >= 0 && (isLetter(previous) || isDigit(previous))) {
    const camelBoundary = keywordUpper && !isUpper(previous);
    let start = index;
    while (start > 0 && index - start < 40) {
      const code = text.charCodeAt(start - 1);
      if (!isLetter(code) && !isDigit(code)) break;
      if (camelBoundary && start < index && isUpper(text.charCodeAt(start))) break;
      start--;
    }
    const word = text.slice(start, index).toLowerCase();
    return camelBoundary ? { word, joined: false, joinedPrefix: '' } : { word: '', joined: true, joinedPrefix: word };
  }
  if (previous === 95 || previous === 45 || previous === 46) {
    let start = index - 1;
    while (start > 0 && index - 1 - start < 40 && (isLetter(text.charCodeAt(start - 1)) || isDigit(text.charCodeAt(start - 1)))) start--;
    const segment = text.slice(start, index - 1);
    // In `apiKey_secret` the word before `secret` is `key`: only a trailing camelCase word counts,
    // while an all-capitals segment (`API` in `API_KEY`) is one word.
    const camel = /[a-z]/.test(segment) ? /[A-Z]?[a-z0-9]+$/.exec(segment) : null;
    return { word: (camel ? camel[0] : segment).toLowerCase(), joined: false, joinedPrefix: '' };
  }
  return { word: '', joined: false, joinedPrefix: '' };
}

/** Whether the keyword found at `index` ends a secret-like name. */
function isSecretName(text: string, index: number, keyword: string): boolean {
  const lower = keyword.toLowerCase();
  const before = wordBefore(text, index);
  if (wholeWordKeywords.has(lower)) return !before.joined;
  if (lower === 'key') {
    if (before.joined) return [...keyQualifiers].some((qualifier) => before.joinedPrefix.endsWith(qualifier));
    return keyQualifiers.has(before.word);
  }
  // password, passwd, passphrase, secret, token, credential(s): any prefix (`dbPassword`, `clientsecret`).
  return true;
}

/**
 * Values that only point at a secret, or stand in for one, and the weak human passwords of test
 * fixtures (`adminpass123`); four-letter words like these almost never occur in random strings.
 * A reference is a whole shape (`$DB_PASS`, `%PASS%`, `@db.password`, `&pass;`) or an opening
 * (`${`, `#{`, `{{`, `%(`, a bracket), and a format has `%s` before its end or a separator: a
 * random password that merely starts with `%`, `@`, `#`, `*` or `&`, or holds `%S!`, is still one.
 */
const valuePlaceholderPattern =
  /^[{<[(]|^\$[A-Za-z_]\w*$|^%[A-Za-z_]\w*%$|^@[A-Za-z_][\w-]*[.:][\w.:-]*$|^&[A-Za-z]\w{0,15};$|^#\{|\$\{|\{\{|\}\}|%\(|<[^>]*>|process\.env|environ|getenv|\benv\b|changeme|change[_-]?me|example|placeholder|your|xxxx|\*\*\*|\.\.\.|dummy|fake|sample|redacted|replace|insert|todo|test|mock|secret|password|token|undefined|null|none|localhost|lorem|foobar|123456|abcdef|qwerty|pass|admin|user|guest|demo|default|welcome|letmein/i;

/** A printf-style slot (`db-%s`, `%s:%s`), case-sensitive. */
const formatPlaceholderPattern = /%s(?=$|[\s'"/:.,;_-])/;

const dottedIdentifierPattern = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
/** Absolute or explicitly relative paths; a bare `a/b` may be base64 (AWS secrets contain `/`). */
const pathPattern = /^(?:\.{0,2}\/|~\/|[A-Za-z]:\\)/;

/** Shannon entropy of the value in bits per character. */
export function shannonEntropy(value: string): number {
  const counts = new Map<number, number>();
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  let entropy = 0;
  for (const count of counts.values()) {
    const probability = count / value.length;
    entropy -= probability * Math.log2(probability);
  }
  return entropy;
}

/**
 * The entropy a value must reach. Random strings of n characters cannot exceed log2(n) bits, and
 * hex (UUIDs included) draws from 16 symbols only, so short and hex values get a lower bar; 3.5 bits is the ceiling
 * (measured: ≥ 99% of random 16+ character alphanumeric and 20+ character hex values clear it).
 */
function entropyThreshold(value: string): number {
  const lengthBound = Math.log2(value.length);
  return /^[0-9a-f-]+$/i.test(value) ? Math.min(3.0, lengthBound - 1.3) : Math.min(3.5, lengthBound - 1.0);
}

/**
 * `AccessToken2Factory`, `SECRET_KEY_V2`, `geheim$parole`: mostly dictionary-like words (a capital
 * and three or more lower-case letters, or four capitals) with at most two digits and at most one
 * of `!@#%^&*+=?~`; a run counts only with a vowel. Random strings rarely have long lower-case runs
 * *and* so few digits.
 */
function looksLikeWords(value: string): boolean {
  let digits = 0;
  for (let index = 0; index < value.length; index++) if (isDigit(value.charCodeAt(index))) digits++;
  if (digits > 2) return false;
  // Names join words with `_`, `-`, `.` or one `$`; two or more of these symbols mean a typed password.
  if ((value.match(/[!@#%^&*+=?~]/g)?.length ?? 0) >= 2) return false;
  let wordCharacters = 0;
  // A run without a vowel (`Qdfw`, `Hsgt`) is a random run, not a word.
  for (const match of value.matchAll(/[A-Z]?[a-z]{3,}|[A-Z]{4,}/g)) if (/[aeiouy]/i.test(match[0])) wordCharacters += match[0].length;
  return wordCharacters / value.length >= 0.6;
}

export const minimumSecretLength = 12;

/**
 * Whether a literal assigned to a secret-like name is itself a secret: long enough, no spaces, not a
 * reference or placeholder, with a digit or symbol but not only digits, not a path or dotted
 * identifier, not made of words, random enough.
 */
export function isSecretLikeValue(value: string, minimumLength = minimumSecretLength): boolean {
  if (value.length < minimumLength || value.length > 4096) return false;
  if (/\s/.test(value) || value.includes('://')) return false;
  if (valuePlaceholderPattern.test(value) || formatPlaceholderPattern.test(value)) return false;
  if (!/[0-9+/=!@#$%^&*?~]/.test(value) || /^[0-9]+$/.test(value)) return false;
  if (dottedIdentifierPattern.test(value) || pathPattern.test(value) || looksLikeWords(value)) return false;
  return shannonEntropy(value) >= entropyThreshold(value);
}

/**
 * In source code a bare right-hand side is an expression (`token = getToken()`, `password =
 * req.body.password`), so only quoted literals count; config, shell and prose files take bare values.
 */
const codeExtensions = new Set([
  '.ts',
  '.tsx',
  '.mts',
  '.cts',
  '.js',
  '.jsx',
  '.mjs',
  '.cjs',
  '.py',
  '.pyi',
  '.go',
  '.java',
  '.kt',
  '.kts',
  '.scala',
  '.cs',
  '.fs',
  '.vb',
  '.rb',
  '.php',
  '.rs',
  '.c',
  '.h',
  '.cc',
  '.cpp',
  '.cxx',
  '.hpp',
  '.hh',
  '.hxx',
  '.m',
  '.mm',
  '.swift',
  '.dart',
  '.lua',
  '.pl',
  '.pm',
  '.r',
  '.jl',
  '.ex',
  '.exs',
  '.erl',
  '.hs',
  '.ml',
  '.clj',
  '.cljs',
  '.groovy',
  '.gradle',
  '.vue',
  '.svelte',
  '.astro',
  '.elm',
  '.zig',
  '.nim',
  '.sol',
  '.tf',
  '.hcl',
  '.nix',
  '.ps1',
  '.sql',
]);

function extensionOf(relativePath: string): string {
  const base = relativePath.slice(relativePath.lastIndexOf('/') + 1).toLowerCase();
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot) : '';
}

/**
 * `…;Password=S3cr…;` inside a string literal of code: a connection-string key right after `;`
 * (or opening the literal) and `=` with no space, so its bare value is a literal, not an expression.
 */
function inConnectionString(text: string, nameStart: number, tail: string): boolean {
  const before = text[nameStart - 1];
  return (before === ';' || before === '"' || before === "'") && tail[0] === '=';
}

/** The secret assignment whose name ends with `name` at `index`, if its value is a secret. */
function assignmentAt(text: string, index: number, name: string, bareAllowed: boolean): SecretRule | undefined {
  const keyword = keywordPattern.exec(name) as RegExpExecArray;
  if (!isSecretName(text, index, keyword[0])) return undefined;
  assignmentTailPattern.lastIndex = index + name.length;
  const tail = assignmentTailPattern.exec(text);
  if (!tail) return undefined;
  const groups = tail.groups as Record<string, string | undefined>;
  const quoted = groups.double ?? groups.single ?? groups.backtick ?? groups.escaped;
  const fullName = nameEndingAt(text, index + name.length);
  const bareLiteral = bareAllowed || inConnectionString(text, index + name.length - fullName.length, tail[0]);
  const value = quoted ?? (bareLiteral ? groups.bare : undefined);
  if (value === undefined || !isSecretLikeValue(value)) return undefined;
  const vendorRule = tokenWithin(value);
  if (vendorRule) return vendorRule;
  return /secret[_.-]?access[_.-]?key$/i.test(fullName) && /^[A-Za-z0-9/+]{40}$/.test(value)
    ? 'aws-secret-access-key'
    : 'secret-assignment';
}

/** The first vendor token or secret assignment in the text. */
function findCandidate(text: string, relativePath: string): Hit | undefined {
  const bareAllowed = !codeExtensions.has(extensionOf(relativePath));
  candidatePattern.lastIndex = 0;
  for (let match = candidatePattern.exec(text); match; match = candidatePattern.exec(text)) {
    const name = match[1];
    const rule = name !== undefined ? assignmentAt(text, match.index, name, bareAllowed) : tokenAt(text, match.index);
    if (rule) return { rule, index: match.index };
  }
  return undefined;
}

function nameEndingAt(text: string, end: number): string {
  let start = end;
  while (start > 0 && end - start < 80 && /[\w.-]/.test(text[start - 1])) start--;
  return text.slice(start, end);
}

// --- Credentials in URLs ----------------------------------------------------------------------

const urlUserInfoPattern = /([^\s:@/?#"'`<>\\]{1,64}):([^\s@/?#"'`<>\\]{1,128})@(?<host>[A-Za-z0-9.-]{1,253})/y;
/** Hosts of documentation and local development, whose passwords are not worth a secret. */
const exampleHostPattern = /(?:^|\.)(?:example|localhost|test|invalid|local)(?:\.(?:com|org|net))?$|^127\.|^0\.0\.0\.0$/i;

/** `he%2F%2Fo` is the five characters `he//o`; percent escapes would otherwise look random. */
function decodePercent(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `https://user:S3cr…@host`: the password part must itself look like a secret. */
function findUrlCredentials(text: string, stopAt: number): Hit | undefined {
  for (let index = text.indexOf('://'); index !== -1 && index < stopAt; index = text.indexOf('://', index + 3)) {
    urlUserInfoPattern.lastIndex = index + 3;
    const match = urlUserInfoPattern.exec(text);
    if (!match || exampleHostPattern.test((match.groups as Record<string, string>).host)) continue;
    const password = decodePercent(match[2]);
    if (isSecretLikeValue(password, 8)) return { rule: tokenWithin(password) ?? 'url-credentials', index: index + 3 };
  }
  return undefined;
}

/** `curl -u deploy:S3cr…` (also `--user`, `wget --password`): the password must look like a secret. */
const commandLineCredentialPattern = /(?:^|[\s"'`])(?:-u|--user)(?:[ \t]+|=)["']?([^\s:"'`]{1,64}):([^\s"'`]{6,128})/g;

function findCommandLineCredential(text: string, stopAt: number): Hit | undefined {
  commandLineCredentialPattern.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = commandLineCredentialPattern.exec(text)) && match.index < stopAt) {
    if (isSecretLikeValue(match[2], 8)) return { rule: 'command-line-credentials', index: match.index };
  }
  return undefined;
}

// --- Registry configuration files ---------------------------------------------------------------

const registryConfigNames = new Set(['.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc', '.gemrc', 'pip.conf', 'pip.ini', '.condarc']);

/**
 * In a registry configuration any literal credential counts, however weak: the file's whole
 * purpose is to hand it to a tool. `${NPM_TOKEN}` and `<token>` stand-ins do not.
 */
const registryCredentialPattern =
  /(?:^|[\s:/])(?<name>_authToken|npmAuthToken|_auth|_password|npmAuthIdent|npmPassword|password|:?rubygems_api_key)[ \t]*[=:][ \t]*["']?(?<value>[^\s"']{1,4096})/gm;

function findRegistryCredential(text: string, relativePath: string): Hit | undefined {
  const base = relativePath.slice(relativePath.lastIndexOf('/') + 1).toLowerCase();
  if (!registryConfigNames.has(base)) return undefined;
  registryCredentialPattern.lastIndex = 0;
  for (let match = registryCredentialPattern.exec(text); match; match = registryCredentialPattern.exec(text)) {
    const groups = match.groups as Record<string, string>;
    const value = groups.value;
    if (value.length < 4 || /^[$%{<]|\$\{|xxxx|your|placeholder|changeme/i.test(value)) continue;
    const rule: SecretRule = /authtoken/i.test(groups.name) ? 'npmrc-auth-token' : 'registry-password';
    return { rule, index: match.index + match[0].indexOf(groups.name) };
  }
  return undefined;
}

// --- Tokens found by a marker inside them ------------------------------------------------------

/** The first anchored token (`vendorTokens.ts`) before `stopAt`: `indexOf` per marker, then a sticky check. */
function findAnchoredToken(text: string, stopAt: number): Hit | undefined {
  let best: Hit | undefined;
  for (const token of anchoredTokens) {
    const limit = best?.index ?? stopAt;
    for (let index = text.indexOf(token.anchor); index !== -1 && index < limit; index = text.indexOf(token.anchor, index + 1)) {
      const start = token.back
        .map((back) => index - back)
        .find((from) => {
          if (from < 0) return false;
          token.pattern.lastIndex = from;
          const match = token.pattern.exec(text);
          return match !== null && acceptVendorToken(match[0]);
        });
      if (start !== undefined) {
        best = { rule: token.rule as SecretRule, index: start };
        break;
      }
    }
  }
  return best;
}

/**
 * Discord bot tokens have no prefix: the base64 of the bot's numeric id, a dot, six characters of
 * timestamp, a dot and the HMAC. The id part starts with `M`, `N` or `O` (ids are 17-20 digits).
 */
const discordBotTokenPattern = /(?<![\w.-])[MNO][A-Za-z\d]{23,27}\.[\w-]{6}\.[\w-]{27,40}(?![\w.-])/g;

function findDiscordBotToken(text: string, stopAt: number): Hit | undefined {
  discordBotTokenPattern.lastIndex = 0;
  for (let match = discordBotTokenPattern.exec(text); match && match.index < stopAt; match = discordBotTokenPattern.exec(text)) {
    const [id, , hmac] = match[0].split('.');
    const mixed = /\d/.test(hmac) && /[a-z]/.test(hmac) && /[A-Z]/.test(hmac);
    if (/\d/.test(id) && mixed && acceptVendorToken(hmac)) return { rule: 'discord-bot-token', index: match.index };
  }
  return undefined;
}

// --- Entry point ------------------------------------------------------------------------------

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let newline = text.indexOf('\n'); newline !== -1 && newline < index; newline = text.indexOf('\n', newline + 1)) line++;
  return line;
}

/**
 * The first high-confidence secret in `text` (by position), or `undefined`. `relativePath` decides
 * whether bare (unquoted) values count and whether registry-config rules apply.
 */
export function findSecret(text: string, relativePath: string): SecretFinding | undefined {
  let best = findRegistryCredential(text, relativePath);
  const consider = (hit: Hit | undefined) => {
    if (hit && (!best || hit.index < best.index)) best = hit;
  };
  consider(findCandidate(text, relativePath));
  consider(findUrlCredentials(text, best?.index ?? Infinity));
  consider(findAnchoredToken(text, best?.index ?? Infinity));
  consider(findCommandLineCredential(text, best?.index ?? Infinity));
  consider(findDiscordBotToken(text, best?.index ?? Infinity));
  const found = best;
  return found ? { rule: found.rule, line: lineAt(text, found.index) } : undefined;
}
