import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { identifierPattern, isIdentifier } from '../../src/core/parsing/identifierIndex';
import { splitAscii, splitByPatterns, splitIdentifier } from '../../src/core/words';
import { Draw, seededRandom } from './secretCorpus';

describe('identifier splitting', () => {
  test('splits the usual shapes into lower-case parts', () => {
    assert.deepEqual(splitIdentifier('parseHttpHeader'), ['parse', 'http', 'header']);
    assert.deepEqual(splitIdentifier('parse_http_header'), ['parse', 'http', 'header']);
    assert.deepEqual(splitIdentifier('HTTPServer2'), ['http', 'server2']);
    assert.deepEqual(splitIdentifier('getHTTPResponseCode'), ['get', 'http', 'response', 'code']);
    assert.deepEqual(splitIdentifier('$scope.value__x'), ['scope', 'value', 'x']);
    assert.deepEqual(splitIdentifier('__'), []);
  });

  test('ASCII identifiers split exactly as the Unicode patterns split them', () => {
    const draw = new Draw(seededRandom(15));
    // Few distinct characters make every transition (case, digit, separator, runs) frequent.
    const alphabet = 'aAbBzZ09_$-. xXqQ';
    for (let index = 0; index < 20_000; index++) {
      const identifier = draw.from(alphabet, 1 + (index % 14));
      assert.deepEqual(splitIdentifier(identifier), splitByPatterns(identifier), JSON.stringify(identifier));
    }
  });

  test('the one-pass splitter equals the Unicode patterns on ASCII and declines anything beyond it', () => {
    const draw = new Draw(seededRandom(17));
    const ascii = 'aAbBzZ09_$-. xXqQ';
    const mixed = 'aAbZ09_ éÉßΣ\u00b2\u{1d518}'.normalize();
    for (let index = 0; index < 20_000; index++) {
      const identifier = draw.from(ascii, 1 + (index % 14));
      assert.deepEqual(splitAscii(identifier), splitByPatterns(identifier), JSON.stringify(identifier));
      const other = draw.from(mixed, 1 + (index % 10));
      const beyondAscii = [...other].some((character) => character.charCodeAt(0) > 127);
      assert.deepEqual(splitAscii(other), beyondAscii ? undefined : splitByPatterns(other), JSON.stringify(other));
      assert.deepEqual(splitIdentifier(other), splitByPatterns(other), JSON.stringify(other));
    }
    assert.equal(splitAscii('parseÄpfel'), undefined);
    assert.deepEqual(splitAscii(''), []);
  });

  test('identifiers with letters beyond ASCII keep the Unicode rules', () => {
    for (const identifier of ['größeBerechnen', 'ÄußereKlasse', 'naïveHTTPClient', 'δέλταValue', 'parseΣum']) {
      assert.deepEqual(splitIdentifier(identifier), splitByPatterns(identifier), identifier);
    }
    assert.deepEqual(splitIdentifier('größeBerechnen'), ['größe', 'berechnen']);
  });

  test('names are told from other tokens exactly as the Unicode pattern tells them', () => {
    const draw = new Draw(seededRandom(16));
    const alphabet = 'aZ_$09-. é\u00b2Σ@';
    for (let index = 0; index < 20_000; index++) {
      const token = draw.from(alphabet, 1 + (index % 8));
      assert.equal(isIdentifier(token), identifierPattern.test(token), JSON.stringify(token));
    }
    assert.equal(isIdentifier('parseHttpHeader'), true);
    assert.equal(isIdentifier('2fast'), false);
  });
});
