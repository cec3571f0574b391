import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { runTool } from '../../src/core/tools/toolSet';
import { Fixture, openEngine, structuralParsers, tempFile } from './fixtures';

const repository = path.resolve(__dirname, '..', '..', '..');
const cli = path.join(repository, 'dist', 'cli.js');
const fixtures: Fixture[] = [];
after(() => fixtures.forEach((created) => created.cleanup()));

function pk(args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: repository, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const session = 'export class Session {\n  send(message: string): void {\n    console.log("sending message", message);\n  }\n}\n';
const queue = 'export function enqueue(message: string): string[] {\n  return [message];\n}\n';

function project(): { root: string; db: string } {
  const fixture = new Fixture({ 'src/session.ts': session, 'src/queue.ts': queue });
  fixtures.push(fixture);
  return { root: fixture.root, db: tempFile('curation-cli.sqlite') };
}

interface ContextJson {
  blocks: string[];
  manifest: { entries: Array<{ reason: string; kind: string; snippetId: string; included: boolean }> };
}

describe('pk pins, pk memory and pk context read the same log (issue 19)', () => {
  test('a pin and a memory item added by the CLI come first in pk context; a conflict exits 1 naming the ids', () => {
    const { root, db } = project();
    const at = ['--root', root, '--db', db];
    assert.equal(pk(['index', root, '--db', db]).code, 0);
    const pinned = pk(['pins', 'add', 'src/session.ts', '--symbol', 'Session.send', ...at, '--json']);
    assert.equal(pinned.code, 0, pinned.stderr);
    const pin = JSON.parse(pinned.stdout) as { id: string; created: boolean };
    assert.equal(pin.created, true);
    const repeated = JSON.parse(pk(['pins', 'add', 'src/session.ts', '--symbol', 'Session.send', ...at, '--json']).stdout) as {
      id: string;
    };
    assert.equal(repeated.id, pin.id);
    const remembered = pk(['memory', 'add', 'Queued messages are sent in order', ...at]);
    assert.equal(remembered.code, 0, remembered.stderr);
    const memoryId = /Remembered (mem-[0-9a-f]{12})/.exec(remembered.stdout)?.[1] ?? '';
    assert.ok(memoryId);

    const conflict = pk(['memory', 'add', 'Queued messages are sent at random', ...at]);
    assert.equal(conflict.code, 1);
    assert.equal(conflict.stderr.trim().split('\n').length, 1, 'one line');
    assert.ok(conflict.stderr.includes(memoryId), conflict.stderr);

    const context = pk(['context', 'enqueue queued messages', ...at, '--json']);
    assert.equal(context.code, 0, context.stderr);
    const parsed = JSON.parse(context.stdout) as ContextJson;
    assert.ok(parsed.blocks[0].includes('Relevance: pinned by the user'));
    assert.ok(parsed.blocks[0].includes('sending message'));
    assert.ok(parsed.blocks[1].startsWith('[PROJECT MEMORY') && parsed.blocks[1].includes(memoryId));
    assert.ok(parsed.blocks.slice(2).some((block) => block.includes('src/queue.ts')));
    assert.deepEqual(
      parsed.manifest.entries.slice(0, 2).map((entry) => [entry.snippetId, entry.reason]),
      [
        [pin.id, 'pinned'],
        [memoryId, 'memory'],
      ],
    );

    const listed = pk(['pins', ...at]);
    assert.match(listed.stdout, new RegExp(`${pin.id}\\s+declaration\\s+src/session.ts Session.send\\s+current src/session.ts:2-4`));
    assert.equal(pk(['pins', 'remove', pin.id, ...at]).code, 0);
    assert.equal(pk(['pins', ...at]).stdout.trim(), 'No pins.');
    const memory = pk(['memory', ...at]).stdout;
    assert.ok(memory.includes(memoryId) && memory.includes('active'));
  });

  test('bad curation input is a one-line error with a non-zero exit', () => {
    const { root, db } = project();
    const at = ['--root', root, '--db', db];
    assert.equal(pk(['index', root, '--db', db]).code, 0);
    const cases: Array<[string[], number, RegExp]> = [
      [['pins', 'add', 'src/missing.ts'], 1, /not in the index/],
      [['pins', 'add', 'src/session.ts', '--symbol', 'Session.receive'], 1, /No declaration Session.receive/],
      [['pins', 'remove', 'pin-000000000000'], 1, /No active pin/],
      [['pins', 'add', 'src/session.ts#L9-L3'], 2, /invalid line range/],
      [['memory', 'supersede', 'mem-000000000000', 'x'], 1, /No memory item/],
      [['memory', 'add'], 2, /needs a claim/],
      [['ranker', 'train'], 1, /at least 20 labels/],
      [['search', 'x', '--ranking', 'sometimes'], 2, /--ranking must be one of off, shadow, active/],
    ];
    for (const [args, code, message] of cases) {
      const result = pk([...args, ...at]);
      assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr.split('\n')[0], message);
    }
  });

  test('the MCP search tool answers with the pins and memory first', async () => {
    const { root, db } = project();
    const engine = await openEngine(root, { dbPath: db, parsers: structuralParsers() });
    await engine.sync();
    await engine.curate('pin', { target: { target: 'file', path: 'src/session.ts' } });
    const memory = await engine.curate('remember', { claim: 'Queued messages are sent in order' });
    const answer = await runTool(engine, 'search', { query: 'enqueue queued messages' });
    const structured = answer.structured as { blocks: string[]; results: Array<{ reason: string }> };
    assert.equal(structured.results[0].reason, 'pinned');
    assert.ok(structured.blocks[1].includes(memory.id));
    assert.ok(answer.text.indexOf('Relevance: pinned by the user') < answer.text.indexOf(memory.id));
    assert.ok(answer.text.indexOf(memory.id) < answer.text.indexOf('Path: "src/queue.ts"'));
    assert.equal((answer.structured as { manifest: { entries: Array<{ reason: string }> } }).manifest.entries[0].reason, 'pinned');
    await engine.close();
  });
});
