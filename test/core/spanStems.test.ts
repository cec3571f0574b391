import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stemAnchors, wantedStems } from '../../src/core/retrieval/span';
import { splitIdentifier, stemWord } from '../../src/core/words';
import { Random } from '../bench/random';

/** Words whose stems take every branch of `stemWord`: -ies, -sses, -s, the suffixes, a final e, a final y. */
const vocabulary = [
  'query',
  'queries',
  'cookie',
  'cookies',
  'parse',
  'parsed',
  'parser',
  'parsing',
  'classes',
  'address',
  'status',
  'redirection',
  'redirects',
  'statements',
  'mapping',
  'quickly',
  'retry',
  'retries',
  'HTTPServer',
  'parseCookieHeader',
  'get_query_string',
  'Retry2Policy',
  'XMLHttpRequest',
  'io',
  'db',
  'x',
  'URLs',
  'saved',
  'save',
  'entity',
  'entities',
  'tries',
  'value_y',
];
const separators = [' ', '.', '(', ')', ', ', ' = ', '_', '-', '"', '  ', '\t', '/', ':'];

test('a line without any stem anchor holds none of the wanted stems, so skipping its words changes nothing', () => {
  const random = new Random(20261204);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random.next() * list.length)];
  const stemsOf = (word: string) => [stemWord(word), ...splitIdentifier(word).map(stemWord)];
  let skipped = 0;
  for (let round = 0; round < 3000; round++) {
    const wanted = new Set<string>();
    const count = 1 + Math.floor(random.next() * 6);
    for (let index = 0; index < count; index++) wanted.add(pick(stemsOf(pick(vocabulary))));
    if (random.next() < 0.2) wanted.add(stemWord(pick(['zzz', 'a', 'é', 'naïve'])));
    const anchors = stemAnchors(wanted);
    assert.ok(anchors, 'a handful of stems is anchored');
    let line = '';
    const words = Math.floor(random.next() * 8);
    for (let index = 0; index < words; index++) {
      const word = pick(vocabulary);
      line += (random.next() < 0.3 ? word.toUpperCase() : word) + pick(separators);
    }
    const expected = wantedStems(line, wanted);
    const anchored = wantedStems(line, wanted, anchors);
    assert.deepEqual([...anchored].sort(), [...expected].sort(), `${JSON.stringify(line)} wanting ${JSON.stringify([...wanted])}`);
    if (!anchors.some((anchor) => line.toLowerCase().includes(anchor))) skipped++;
  }
  assert.ok(skipped > 300, `the anchors let ${skipped} of 3000 lines skip their words`);
  // A line beyond ASCII is always stemmed word by word.
  assert.deepEqual([...wantedStems('ﬁle Queries', new Set(['queri']), stemAnchors(new Set(['queri'])))], ['queri']);
  assert.equal(stemAnchors(new Set(Array.from({ length: 30 }, (_, index) => `stem${index}`))), undefined, 'many stems: no anchors');
});
