import { splitIdentifier } from '../tokens';

/** What a free-text request asks for, in the terms the index can look up (SPEC §8). */
export interface TaskDescriptor {
  text: string;
  paths: string[];
  qualifiedSymbols: string[];
  symbols: string[];
  identifiers: string[];
  phrases: string[];
  errorMessages: string[];
  technologies: string[];
  keywords: string[];
  /** False when the request holds nothing worth retrieving for (e.g. a lone generic word). */
  actionable: boolean;
}

const stopwords = new Set(`a about above after again against all am an and any are aren as at be because been before being
below between both but by can cannot could did do does doing don down during each few for from further get gets got had has
have having he her here hers him his how i if in into is isn it its itself just let me more most my no nor not now of off on
once only or other our ours out over own please same she should show so some such tell than that the their them then there
these they this those through to too under until up very was we were what when where which while who whom why will with
would you your yours find look see explain work works working happen happens happening used use using via also need want
into onto i'm it's whats what's where's hows does done make makes made`.split(/\s+/));

/** Words that alone say nothing about where to look. */
const genericWords = new Set(`code file files function functions class classes method methods project repo repository
thing things stuff bug bugs error errors issue issues problem help fix test tests implementation module modules variable
value values type types data logic program source app application feature`.split(/\s+/));

const technologyWords = new Set(`react vue angular svelte express fastify koa next nextjs node deno bun typescript javascript
python django flask fastapi go golang rust cargo java spring kotlin csharp dotnet php laravel ruby rails bash shell sql sqlite
postgres postgresql mysql redis mongodb graphql grpc rest http https websocket docker kubernetes terraform aws gcp azure
webpack vite esbuild jest mocha vitest pytest git json yaml toml html css tailwind wasm webassembly tree-sitter`.split(/\s+/));

const fileExtension = /\.(?:[cm]?[jt]sx?|py|pyi|go|rs|java|cs|c|h|cc|cpp|hpp|php|rb|sh|bash|json|ya?ml|toml|md|css|scss|html|sql|xml|ini|cfg|conf|lock|txt|vue|svelte|kt|swift|scm|mjs|cjs)$/i;

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function isIdentifierLike(word: string): boolean {
  return /[a-z][A-Z]|[A-Z]{2,}[a-z]|_|^[A-Z][a-z]+[A-Z]/.test(word) || /^[a-z]+(?:-[a-z0-9]+)+$/.test(word) || /^[A-Z][A-Za-z0-9]*$/.test(word);
}

/** Builds a task descriptor from a chat prompt, tool input or search box text. */
export function describeTask(input: string, attachedPaths: string[] = []): TaskDescriptor {
  const text = input.trim();
  const phrases: string[] = [];
  let rest = text.replace(/"([^"]{3,200})"|'([^'\n]{3,200})'|`([^`\n]{2,200})`|“([^”]{3,200})”/g, (_match, a?: string, b?: string, c?: string, d?: string) => {
    const phrase = (a ?? b ?? c ?? d ?? '').trim();
    if (phrase) phrases.push(phrase);
    return ' ';
  });

  const errorMessages: string[] = [];
  for (const match of rest.matchAll(/\b(?:[A-Z][A-Za-z]*Error|Error|Exception|panic|fatal|FATAL|ERROR|TypeError|ReferenceError)\b[:!]?\s+([^\n]{4,200})/g)) {
    errorMessages.push(match[0].trim());
  }

  const paths: string[] = [...attachedPaths];
  const qualifiedSymbols: string[] = [];
  const symbols: string[] = [];
  const identifiers: string[] = [];
  const keywords: string[] = [];
  const technologies: string[] = [];

  // Backticked phrases that look like code count as symbols or paths too.
  for (const phrase of phrases) rest += ` ${/^[\w./:#$-]+$/.test(phrase) ? phrase : ''}`;

  for (const raw of rest.split(/[\s,;()[\]{}<>!?]+/)) {
    const token = raw.replace(/^[^\w./$#:~@-]+|[.:]+$/g, '');
    if (!token) continue;
    if ((token.includes('/') && /[A-Za-z]/.test(token) && !/^https?:/.test(token)) || fileExtension.test(token)) {
      paths.push(token.replace(/^\.\//, ''));
      continue;
    }
    const qualified = token.match(/^[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)+(?:\(\))?$/);
    if (qualified) {
      const normalized = token.replace(/\(\)$/, '').replace(/::|#|->/g, '.');
      qualifiedSymbols.push(normalized);
      const last = normalized.split('.').pop() as string;
      symbols.push(last);
      identifiers.push(...normalized.split('.'));
      continue;
    }
    const word = token.replace(/\(\)$/, '');
    if (!/^[\w$-]+$/.test(word)) continue;
    const lower = word.toLowerCase();
    if (technologyWords.has(lower)) technologies.push(lower);
    if (isIdentifierLike(word) && !stopwords.has(lower)) {
      identifiers.push(word);
      symbols.push(word);
      continue;
    }
    if (stopwords.has(lower) || lower.length < 2) continue;
    keywords.push(lower);
    if (word.length >= 3 && /^[A-Za-z_$][\w$]*$/.test(word)) symbols.push(word);
  }

  const descriptor: TaskDescriptor = {
    text,
    paths: unique(paths),
    qualifiedSymbols: unique(qualifiedSymbols),
    symbols: unique(symbols),
    identifiers: unique(identifiers),
    phrases: unique(phrases),
    errorMessages: unique(errorMessages),
    technologies: unique(technologies),
    keywords: unique(keywords),
    actionable: true,
  };
  const specific = descriptor.paths.length + descriptor.qualifiedSymbols.length + descriptor.identifiers.length + descriptor.phrases.length + descriptor.errorMessages.length;
  const meaningful = descriptor.keywords.filter((keyword) => !genericWords.has(keyword));
  descriptor.actionable = specific > 0 || meaningful.length > 0 || descriptor.keywords.length > 1;
  return descriptor;
}

/** Every lower-case word the full-text search should look for. */
export function searchWords(descriptor: TaskDescriptor): string[] {
  const words: string[] = [];
  for (const identifier of descriptor.identifiers) {
    words.push(identifier.toLowerCase());
    words.push(...splitIdentifier(identifier));
  }
  for (const keyword of descriptor.keywords) if (!genericWords.has(keyword) || descriptor.keywords.length > 1) words.push(keyword);
  for (const phrase of [...descriptor.phrases, ...descriptor.errorMessages]) {
    for (const word of phrase.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) if (!stopwords.has(word)) words.push(word);
  }
  for (const path of descriptor.paths) words.push(...(path.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []));
  return unique(words.filter((word) => word.length >= 2)).slice(0, 24);
}
