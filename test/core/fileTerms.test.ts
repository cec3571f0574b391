import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FileTermsBuilder, sortedOrder } from '../../src/core/fileTerms';
import { decodeWords, storedFileTerms, unpackFileTerms } from '../../src/core/termCodes';
import { queryWords } from '../../src/core/tokens';
import { splitIdentifier } from '../../src/core/words';
import { Draw, seededRandom } from './secretCorpus';

interface Chunk {
  text: string;
  identifiers: string[];
}

/** What the rules say a chunk indexes: its distinct lower-case words, then the parts of its compounds that are not words. */
function expectedTerms(chunk: Chunk): { words: Set<string>; parts: string[] } {
  const words = new Set<string>();
  const compounds: string[] = [];
  for (const [index, lower] of queryWords(chunk.text).entries()) {
    if (words.has(lower)) continue;
    words.add(lower);
    // The way a word is first written in the chunk decides its parts.
    const written = [...chunk.text.matchAll(/[\p{L}\p{N}_]+/gu)][index][0];
    if (written !== lower || written.includes('_')) compounds.push(written);
  }
  const parts: string[] = [];
  for (const compound of [...compounds, ...chunk.identifiers]) {
    const split = splitIdentifier(compound);
    if (split.length < 2 && words.has(compound.toLowerCase())) continue;
    for (const part of split) if (!words.has(part) && !parts.includes(part)) parts.push(part);
  }
  return { words, parts };
}

/** Builds one file's terms and reads them back as the full-text part does. */
function roundTrip(chunks: Chunk[]): { parts: string[]; vocabulary: string[]; words: string[][]; idents: string[][] } {
  const builder = new FileTermsBuilder();
  const parts = chunks.map((chunk) => builder.addChunk(chunk.text, chunk.identifiers));
  const stored = unpackFileTerms(storedFileTerms(41, builder.pack()));
  assert.deepEqual(
    stored.chunks.map((chunk) => chunk.docid),
    chunks.map((_, index) => 41 + index),
  );
  const list = (codes: Uint8Array) => {
    const text = decodeWords(codes, stored.vocabulary);
    return text === '' ? [] : text.split(' ');
  };
  return {
    parts,
    vocabulary: stored.vocabulary,
    words: stored.chunks.map((chunk) => list(chunk.body)),
    idents: stored.chunks.map((chunk) => list(chunk.idents)),
  };
}

function checkFile(chunks: Chunk[]): void {
  const { parts, vocabulary, words, idents } = roundTrip(chunks);
  assert.deepEqual(vocabulary, [...new Set(vocabulary)].sort(), 'the vocabulary is sorted and each term appears once');
  const used = new Set<string>();
  chunks.forEach((chunk, index) => {
    const expected = expectedTerms(chunk);
    const label = JSON.stringify(chunk);
    assert.deepEqual(words[index], [...expected.words].sort(), label);
    assert.equal(parts[index], expected.parts.join(' '), label);
    assert.deepEqual(idents[index], [...expected.parts].sort(), label);
    for (const term of [...expected.words, ...expected.parts]) used.add(term);
  });
  assert.deepEqual(vocabulary, [...used].sort(), 'the vocabulary holds the terms the chunks index and nothing else');
}

describe('file terms', () => {
  test('a chunk indexes its distinct words and the parts of its compound identifiers', () => {
    const { parts, words, idents } = roundTrip([
      { text: 'const header = parseHttpHeader(raw_value); header.ok', identifiers: ['parseHttpHeader'] },
      { text: 'class Outer { method() {} }', identifiers: ['method', 'Outer method'] },
    ]);
    // `header` is a word of the chunk, so it is no part of it.
    assert.deepEqual(parts, ['parse http raw value', '']);
    assert.deepEqual(words[0], ['const', 'header', 'ok', 'parsehttpheader', 'raw_value']);
    assert.deepEqual(idents[0], ['http', 'parse', 'raw', 'value']);
    assert.deepEqual(words[1], ['class', 'method', 'outer']);
    assert.deepEqual(idents[1], []);
  });

  test('the first way a word is written in a chunk gives its parts, and other spellings add no terms', () => {
    const { parts, vocabulary } = roundTrip([{ text: 'FOOBAR fooBar', identifiers: [] }]);
    assert.deepEqual(parts, ['']);
    assert.deepEqual(vocabulary, ['foobar']);
    const second = roundTrip([
      { text: 'FOOBAR', identifiers: [] },
      { text: 'fooBar FOOBAR', identifiers: [] },
    ]);
    assert.deepEqual(second.parts, ['', 'foo bar']);
    assert.deepEqual(second.vocabulary, ['bar', 'foo', 'foobar']);
  });

  test('words beyond ASCII are lower-cased and split by the Unicode rules', () => {
    checkFile([{ text: 'Größe grüßeWelt naïveHTTPClient δέλταValue 𝔘nicode', identifiers: ['ÄußereKlasse'] }]);
  });

  test('random files index exactly what the rules say', () => {
    const draw = new Draw(seededRandom(27));
    // Few distinct characters make repeated words, spellings and shared prefixes frequent.
    const alphabet = 'aAbBzZ09_ \n.(ÄäßΣ';
    for (let file = 0; file < 200; file++) {
      const chunks: Chunk[] = [];
      for (let chunk = 0; chunk < 1 + (file % 7); chunk++) {
        const text = draw.from(alphabet, 5 + ((file * 13 + chunk * 7) % 120));
        const identifiers = chunk % 2 === 0 ? [draw.from('aAbB_', 1 + (chunk % 5)), draw.from('aB c', 4)] : [];
        chunks.push({ text, identifiers });
      }
      checkFile(chunks);
    }
  });

  test('terms of ASCII word characters keep the order of a plain sort, whatever their keys share', () => {
    const draw = new Draw(seededRandom(4));
    for (const [size, alphabet] of [
      [3000, 'ab09_z'],
      [200, 'a_'],
      [40_000, 'abcdefgh0_'],
    ] as const) {
      // Long shared prefixes put many terms on one key, short ones end inside it.
      const terms = [
        ...new Set(Array.from({ length: size }, (_, index) => 'configur'.slice(0, index % 9) + draw.from(alphabet, index % 11))),
      ];
      terms.push('');
      const plain = [...terms].sort();
      for (const bits of [19, 16, 12, 2]) {
        assert.deepEqual(
          [...sortedOrder(terms, bits)].map((id) => terms[id]),
          plain,
          `${terms.length} terms, ${bits} bits for the term numbers`,
        );
      }
      // One term with another character anywhere in its key sends the whole file the general way.
      const withOther = [...terms, 'configÄ', 'c\u{1d518}', 'zz~'];
      assert.deepEqual(
        [...sortedOrder(withOther)].map((id) => withOther[id]),
        [...withOther].sort(),
      );
    }
  });

  test('the vocabulary order is that of a plain sort, whatever the terms share', () => {
    const draw = new Draw(seededRandom(3));
    const terms = [...new Set(Array.from({ length: 3000 }, (_, index) => draw.from('abAB_é\u{1d518}'.normalize(), 1 + (index % 6))))];
    terms.push('');
    const plain = [...terms].sort();
    for (const bits of [19, 2]) {
      const order = sortedOrder(terms, bits);
      assert.deepEqual(
        [...order].map((id) => terms[id]),
        plain,
        `${bits} bits for the term numbers`,
      );
    }
  });
});
