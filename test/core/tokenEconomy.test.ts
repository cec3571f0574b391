import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { focusSpan, maxWholeSpanLines, weakerEvidenceShape } from '../../src/core/retrieval/span';
import { fixtureFactory, openEngine, structuralParsers } from './fixtures';

const fixture = fixtureFactory();

/** A long body whose only lines about rotation sit in the middle. */
function longBody(): string[] {
  const lines = Array.from({ length: 120 }, (_, index) => `    total_${index} = compute(value_${index})`);
  lines[60] = '    if self.stream.tell() >= self.max_bytes:';
  lines[61] = '        self.rotate_log_file()  # rotated once it grows past the max size';
  return lines;
}

describe('token economy: the smallest span that answers (issue 14)', () => {
  test('a long chunk is cut to the lines holding the request words, with a little context', () => {
    const span = focusSpan(longBody(), ['rotated', 'grows', 'max', 'size']);
    assert.ok(span, 'a long chunk with matching lines is focused');
    assert.ok(span.from <= 60 && span.to >= 61, JSON.stringify(span));
    assert.ok(span.to - span.from + 1 <= 30, JSON.stringify(span));
  });

  test('short chunks, and long ones no line of which matches, stay whole', () => {
    assert.equal(focusSpan(longBody().slice(0, maxWholeSpanLines), ['rotated']), undefined);
    assert.equal(focusSpan(longBody(), ['kangaroo']), undefined);
  });

  test('weaker evidence is cut shorter, and a window at the declaration head is preferred over an equal one further down', () => {
    const lines = longBody().slice(0, 36);
    lines[0] = 'def rotate(self):  # rotated once past the max';
    lines[30] = '    return rotated, max_size';
    // The head holds two of the words, line 30 all three: the head's window wins the tie its bonus makes.
    const span = focusSpan(lines, ['rotated', 'max', 'size'], undefined, weakerEvidenceShape);
    assert.ok(span, 'a 36-line chunk is focused for weaker evidence');
    assert.equal(span.from, 0, JSON.stringify(span));
    assert.ok(span.to - span.from + 1 <= weakerEvidenceShape.windowLines + 2 * weakerEvidenceShape.contextLines, JSON.stringify(span));
    assert.equal(focusSpan(lines, ['rotated', 'max']), undefined, 'the same chunk stays whole for other evidence');
    assert.equal(focusSpan(lines.slice(0, weakerEvidenceShape.wholeLines), ['rotated'], undefined, weakerEvidenceShape), undefined);
    const later = focusSpan(
      [...lines.slice(1, 30), 'x = max + rotated', ...lines.slice(30)],
      ['rotated', 'max', 'size'],
      undefined,
      weakerEvidenceShape,
    );
    assert.ok(later && later.from > 0, `without a matching head the densest window wins: ${JSON.stringify(later)}`);
  });

  test('an exact phrase anchors the span on the line where it starts', () => {
    const lines = longBody();
    lines[90] = '        raise RuntimeError("log file is closed")';
    const span = focusSpan(lines, ['log', 'file', 'closed'], 'log file is closed');
    assert.ok(span && span.from <= 90 && 90 <= span.to && span.to - span.from <= 8, JSON.stringify(span));
  });

  test("a declaration's code wins over its leading doc comment, which names the same words", () => {
    const doc = ['/**', ' * Rotates the log file once it grows past the max size.', ' * @example', ' * rotateLog({ maxSize: 10 })', ' */'];
    const code = ['export function rotateLog(options) {', ...longBody().map((line) => `  ${line.trim()}`), '}'];
    const span = focusSpan([...doc, ...code], ['rotated', 'log', 'max', 'size']);
    // Line 66 (0-based) holds `rotate_log_file`; the comment's words would otherwise win the window at the top.
    assert.ok(span && span.from > doc.length - 1 && span.from <= 66 && span.to >= 66, JSON.stringify(span));
    // With no request word in the code, the comment is what matches.
    const comment = focusSpan([...doc, ...code], ['example']);
    assert.ok(comment && comment.from === 0, JSON.stringify(comment));
  });

  test('search returns the focused lines, cited and counted as such', async () => {
    const source = ['class Rotator:', '    def emit(self, record):', ...longBody().map((line) => `    ${line}`), ''].join('\n');
    const engine = await openEngine(fixture({ 'logs/rotator.py': source }).root);
    await engine.sync();
    const result = await engine.search('rotated once it grows past the max size');
    const top = result.results[0];
    assert.equal(top.path, 'logs/rotator.py');
    assert.ok(top.startLine <= 63 && top.endLine >= 64, `${top.startLine}-${top.endLine}`);
    assert.ok(top.endLine - top.startLine + 1 <= 30);
    assert.equal(top.text.split('\n').length, top.endLine - top.startLine + 1);
    assert.ok(top.citation.includes(`#L${top.startLine}-L${top.endLine}@`));
    const entry = result.manifest.entries.find((item) => item.included && item.path === 'logs/rotator.py');
    assert.equal(entry?.startLine, top.startLine);
    assert.equal(entry?.tokens, top.tokens);
    await engine.close();
  });

  test('a long class looked up by name comes back as its head; its methods are snippets of their own', async () => {
    const methods = Array.from(
      { length: 8 },
      (_, index) => `    def step_${index}(self, value):\n        total = value + ${index}\n        total *= 2\n        return total\n`,
    ).join('\n');
    const source = `class LedgerBook:\n    """Keeps the ledger."""\n\n    currency = "EUR"\n\n${methods}`;
    const engine = await openEngine(fixture({ 'ledger/book.py': source }).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('LedgerBook');
    const top = result.results[0];
    assert.equal(top.symbol, 'LedgerBook');
    assert.equal(top.startLine, 1);
    assert.ok(top.endLine < 6, `${top.startLine}-${top.endLine}`);
    assert.ok(top.text.includes('currency') && !top.text.includes('def step_0'));
    const method = await engine.search('LedgerBook.step_3');
    assert.equal(method.results[0].symbol, 'LedgerBook.step_3');
    await engine.close();
  });

  test('a bare path returns the head of the file, not several chunks', async () => {
    const body = Array.from({ length: 12 }, (_, index) => `def part_${index}(value):\n    return value * ${index}\n`).join('\n');
    const engine = await openEngine(fixture({ 'pkg/parts.py': body }).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('pkg/parts.py');
    assert.equal(result.results.length, 1, JSON.stringify(result.results.map((item) => `${item.startLine}-${item.endLine}`)));
    assert.equal(result.results[0].reason, 'exact-path');
    assert.equal(result.results[0].startLine, 1);
    await engine.close();
  });

  test('a qualified name found as such lets at most one same-named declaration ride along', async () => {
    const files: Record<string, string> = { 'cookies.py': 'class BaseCookie:\n    def load(self, data):\n        return data\n' };
    for (let index = 0; index < 4; index++) files[`other${index}.py`] = `def load(value):\n    return value + ${index}\n`;
    const engine = await openEngine(fixture(files).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('BaseCookie.load');
    assert.equal(result.results[0].symbol, 'BaseCookie.load');
    assert.ok(result.results.length <= 2, JSON.stringify(result.results.map((item) => item.path)));
    const bare = await engine.search('load');
    assert.equal(bare.results.filter((item) => item.reason === 'exact-symbol').length, 5, 'a bare name still returns every declaration');
    await engine.close();
  });
});
