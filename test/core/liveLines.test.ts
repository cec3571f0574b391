import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LiveFiles } from '../../src/core/liveFile';
import type { SyncContext } from '../../src/core/syncContext';
import { wordsIn } from '../../src/core/words';
import { fixtureFactory, openEngine } from './fixtures';
import { Random } from '../bench/random';

const fixture = fixtureFactory();

const bom = Buffer.from([0xef, 0xbb, 0xbf]);
/** Files whose lines `lineText` must cut exactly as `get` splits them. */
const files: Record<string, string | Uint8Array> = {
  'plain.ts': 'export const a = 1;\nexport const b = 2;\n\nexport function c() {\n  return "%s done";\n}\n',
  'no-final-newline.py': 'def f():\n    return "{} left"\n# end',
  'bom.ts': Buffer.concat([bom, Buffer.from('const first = "héllo";\nconst second = 2;\n')]),
  'inner-bom.ts': Buffer.concat([Buffer.from('const a = 1;\n'), bom, Buffer.from('const b = "ünïcode —";\n')]),
  'multibyte.go': 'package main\n// 日本語のコメント\nfunc 名前() string { return "𝑥 %v" }\n',
  'broken-utf8.txt': Buffer.concat([
    Buffer.from('ok line\n'),
    Buffer.from([0xe6, 0x97]),
    Buffer.from('\nafter broken\n'),
    Buffer.from([0xc3]),
  ]),
  'one-line.txt': 'only line',
  'blank-lines.txt': 'a\n\n\nb\n\n',
};

function contextOf(engine: Awaited<ReturnType<typeof openEngine>>): SyncContext {
  return (engine as unknown as { project: SyncContext }).project;
}

test('LiveFiles.lineText gives exactly the lines get() splits, for every range, and get() after it answers as a fresh read', async () => {
  const project = fixture({ ...files, 'windows.txt': 'one\r\ntwo\r\n', 'old-mac.txt': 'one\rtwo\r' });
  const engine = await openEngine(project.root);
  try {
    await engine.sync();
    const context = contextOf(engine);
    for (const path of Object.keys(files)) {
      const expected = await new LiveFiles(context).get(path);
      assert.ok(expected.ok, `${path} reads`);
      const count = expected.lines.length;
      for (let start = 1; start <= count + 2; start++) {
        for (let end = start; end <= count + 2; end++) {
          const live = new LiveFiles(context);
          const text = live.lineText(path, start, end);
          assert.equal(text, expected.lines.slice(start - 1, end).join('\n'), `${path} lines ${start}-${end}`);
          // The bytes read for lineText serve get(): the same answer as a read of its own.
          assert.deepEqual(await live.get(path), expected, `${path} get() after lineText`);
        }
      }
    }
    const live = new LiveFiles(context);
    // A carriage return splits lines too: get() must answer.
    assert.equal(live.lineText('windows.txt', 1, 1), undefined);
    assert.equal(live.lineText('old-mac.txt', 1, 2), undefined);
    assert.equal(live.lineText('missing.txt', 1, 1), undefined);
    assert.deepEqual(await live.get('missing.txt'), { ok: false, reason: 'deleted' });
  } finally {
    await engine.close();
  }
});

test('LiveFiles.lineText reads a file as it is now, and get() still checks what it read', async () => {
  const project = fixture({ 'notes.txt': 'first\nsecond\n' });
  const engine = await openEngine(project.root);
  try {
    await engine.sync();
    const context = contextOf(engine);
    project.edit('notes.txt', 'changed\nlines\n');
    const live = new LiveFiles(context);
    assert.equal(live.lineText('notes.txt', 1, 2), 'changed\nlines');
    const read = await live.get('notes.txt');
    assert.ok(read.ok);
    assert.notEqual(read.sha256, context.store.catalog.file('notes.txt')?.sha256, 'the hash is of the new bytes, not the indexed ones');
    assert.deepEqual(read.lines, ['changed', 'lines', '']);
    // Once get() has read a file, lineText leaves it to get().
    assert.equal(live.lineText('notes.txt', 1, 1), undefined);
  } finally {
    await engine.close();
  }
});

test('wordsIn splits every text as /[\\p{L}\\p{N}_]+/gu does', () => {
  const alphabet = [
    'a',
    'Z',
    '0',
    '9',
    '_',
    ' ',
    '.',
    '-',
    '\n',
    '\u0000',
    'é',
    'ß',
    '—',
    '٣',
    'K',
    'İ',
    '日',
    '𝑥',
    '\ud800',
    '\u0301',
    '\ufeff',
    '%s',
    '{}',
  ];
  const random = new Random(20261204);
  const texts = ['', 'plain ascii_words 42', 'naïve café', 'KELVIN K sign', 'x—y', '𝑥𝑦 z', 'a\u0301b'];
  for (let index = 0; index < 2000; index++) {
    let text = '';
    const length = Math.floor(random.next() * 40);
    for (let at = 0; at < length; at++) text += alphabet[Math.floor(random.next() * alphabet.length)];
    texts.push(text);
  }
  for (const text of texts) {
    assert.deepEqual(wordsIn(text), text.match(/[\p{L}\p{N}_]+/gu) ?? [], JSON.stringify(text));
    assert.deepEqual(wordsIn(text.toLowerCase()), text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [], JSON.stringify(text));
  }
});
