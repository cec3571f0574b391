/**
 * The words code uses for a question's words: the usual abbreviations (`request` → `req`,
 * `configuration` → `config`) and the verbs code names an act by where English uses another
 * (`checked` → `verify`, `throws` → `error`). A question says what happens in prose, and the
 * declaration that does it is named in code terms, so a question word also finds those, weighed
 * below the word itself (`codeTermDiscount`). Only question words get them (see `fullTextTerms`).
 */
import { stemWord } from '../words';

const abbreviations: Record<string, string[]> = {
  address: ['addr'],
  argument: ['arg', 'args'],
  attribute: ['attr', 'attrs'],
  authentication: ['auth'],
  authorization: ['auth'],
  buffer: ['buf'],
  callback: ['cb'],
  certificate: ['cert'],
  character: ['char'],
  configuration: ['config', 'cfg'],
  connection: ['conn'],
  context: ['ctx'],
  database: ['db'],
  destination: ['dest', 'dst'],
  directory: ['dir'],
  document: ['doc'],
  environment: ['env'],
  expression: ['expr'],
  extension: ['ext'],
  function: ['fn', 'func'],
  generate: ['gen'],
  information: ['info'],
  initialize: ['init'],
  length: ['len'],
  library: ['lib'],
  maximum: ['max'],
  message: ['msg'],
  minimum: ['min'],
  number: ['num'],
  parameter: ['param', 'params'],
  password: ['passwd', 'pwd'],
  position: ['pos'],
  previous: ['prev'],
  reference: ['ref'],
  request: ['req'],
  response: ['res', 'resp'],
  source: ['src'],
  specification: ['spec'],
  temporary: ['tmp', 'temp'],
  utility: ['util', 'utils'],
  value: ['val'],
  variable: ['var'],
};

const verbs: Record<string, string[]> = {
  check: ['verify', 'validate'],
  verify: ['check', 'validate'],
  validate: ['check', 'verify'],
  throw: ['error', 'exception'],
  raise: ['error', 'exception'],
  fail: ['error'],
  download: ['fetch'],
  fetch: ['download'],
  remove: ['delete'],
  delete: ['remove'],
  block: ['reject', 'deny'],
  reject: ['deny'],
  deny: ['reject'],
  decode: ['parse'],
  split: ['parse'],
  format: ['serialize', 'stringify'],
  store: ['insert', 'save'],
  save: ['store', 'write'],
  insert: ['add'],
};

function byStem(table: Record<string, string[]>): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const [word, terms] of Object.entries(table)) map.set(stemWord(word), [...(map.get(stemWord(word)) ?? []), ...terms]);
  return map;
}

const abbreviationsByStem = byStem(abbreviations);
const verbsByStem = byStem(verbs);

/** How much of its word's idf a code term gets: it is evidence of the word, not the word itself. */
export const codeTermDiscount = 0.7;

/** The code terms a question's `word` stands for (none for most words). */
export function codeTermsFor(word: string): string[] {
  const stem = stemWord(word);
  const terms = [...(abbreviationsByStem.get(stem) ?? []), ...(verbsByStem.get(stem) ?? [])];
  return [...new Set(terms)].filter((term) => term !== word && stemWord(term) !== stem);
}

/** The run lengths of a question's adjacent words whose initials may name them in code (`server-sent event` → `sse`). */
const acronymRuns = [3, 4];

/**
 * The acronyms a question's adjacent content words may go by in code: the initials of each run of
 * three or four of `words` that follow one another in `text` with only spaces or hyphens between
 * (`byte order mark` → `bom`, `server-sent event` → `sse`), listed for every word of the run. A
 * declaration that names the acronym (`needs_bom`, `SSEStreamingApi`) names all of those words.
 */
export function acronymsOf(text: string, words: readonly string[]): Map<string, string[]> {
  const wanted = new Set(words);
  const acronyms = new Map<string, string[]>();
  // Punctuation other than a hyphen ends a run; so does any word that is not a search word (a stopword, a question word).
  for (const segment of text.toLowerCase().split(/[^\p{L}\p{N}\s-]+/u)) {
    let run: string[] = [];
    const flush = () => {
      for (const length of acronymRuns)
        for (let start = 0; start + length <= run.length; start++) {
          const part = run.slice(start, start + length);
          const acronym = part.map((word) => word[0]).join('');
          for (const word of part) if (!acronyms.get(word)?.includes(acronym)) acronyms.set(word, [...(acronyms.get(word) ?? []), acronym]);
        }
      run = [];
    };
    for (const token of segment.split(/[\s-]+/u)) {
      if (/^\p{L}+$/u.test(token) && wanted.has(token)) run.push(token);
      else flush();
    }
    flush();
  }
  return acronyms;
}
