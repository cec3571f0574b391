import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { leadFromTopFile, questionLeadMargin, type LeadCandidate } from '../../src/core/retrieval/questionLead';

/** A candidate of `path`, declaring `name` (null: a chunk with no declaration). */
function candidate(path: string, name: string | null, score: number): LeadCandidate & { id: string } {
  return { id: `${path}#${name ?? '-'}`, snippet: { path, qualifiedName: name }, score };
}

const ids = (list: Array<{ id: string }>) => list.map((item) => item.id);

describe("a question's lead from the file ranking's top file", () => {
  const answer = [
    candidate('src/words.rs', 'split', 60),
    candidate('src/cache.rs', null, 55),
    candidate('src/cache.rs', 'status', 50),
    candidate('src/cache.rs', 'entry', 45),
  ];

  test("the top file's best declaration goes first when the file leads the next by the margin; the rest keeps its order", () => {
    const ranking = [
      { path: 'src/cache.rs', score: 90 },
      { path: 'src/words.rs', score: 90 - questionLeadMargin },
    ];
    assert.deepEqual(ids(leadFromTopFile(answer, ranking)), [
      'src/cache.rs#status',
      'src/words.rs#split',
      'src/cache.rs#-',
      'src/cache.rs#entry',
    ]);
  });

  test('a lead below the margin changes nothing', () => {
    const ranking = [
      { path: 'src/cache.rs', score: 90 },
      { path: 'src/words.rs', score: 90 - questionLeadMargin + 0.5 },
    ];
    assert.equal(leadFromTopFile(answer, ranking), answer);
  });

  test('a lone ranked file leads by its whole score', () => {
    assert.equal(ids(leadFromTopFile(answer, [{ path: 'src/cache.rs', score: questionLeadMargin }]))[0], 'src/cache.rs#status');
    assert.equal(leadFromTopFile(answer, [{ path: 'src/cache.rs', score: questionLeadMargin - 1 }]), answer);
  });

  test('a top file with no declaration among the answer, or whose declaration is already first, changes nothing', () => {
    const lines = [candidate('src/words.rs', 'split', 60), candidate('src/cache.rs', null, 55)];
    assert.equal(leadFromTopFile(lines, [{ path: 'src/cache.rs', score: 100 }]), lines);
    assert.equal(leadFromTopFile(answer, [{ path: 'src/words.rs', score: 100 }]), answer);
    assert.equal(leadFromTopFile(answer, []), answer);
  });
});
