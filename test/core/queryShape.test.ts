import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { wholePhraseTier, tierScores } from '../../src/core/retrieval/candidates';
import { describeTask } from '../../src/core/retrieval/descriptor';
import { fixtureFactory, openEngine, structuralParsers } from './fixtures';

const fixture = fixtureFactory();

/** Declarations named `loop` and `closed` in several files, and one line that raises the message. */
function collisions(): Record<string, string> {
  const files: Record<string, string> = {
    'aio/base_events.py': [
      'class BaseEventLoop:',
      '    def __init__(self):',
      '        self._closed = False',
      '',
      '    def _check_closed(self):',
      '        if self._closed:',
      "            raise RuntimeError('Event loop is closed')",
      '',
    ].join('\n'),
    'cli/argparse.py': [
      'class ArgumentParser:',
      '    def parse_known_args(self, args, namespace):',
      '        required_actions = [action for action in self._actions if action.required]',
      '        if required_actions:',
      "            self.error(_('the following arguments are required: %s') % ', '.join(required_actions))",
      '        return namespace',
      '',
      '    def check_port(self, value):',
      "        raise ValueError('{} is not a valid port number'.format(value))",
      '',
      '    def resolve(self, scheme, host):',
      "        raise LookupError('unknown scheme %(scheme)s on host %(host)s' % {'scheme': scheme, 'host': host})",
      '',
    ].join('\n'),
  };
  for (let index = 0; index < 6; index++) {
    files[`aio/loop${index}.py`] = [
      `class Runner${index}:`,
      '    def loop(self):',
      '        return self.event',
      '',
      '    def closed(self):',
      '        return self.state == "done"',
      '',
      '    def arguments(self):',
      '        return []',
      '',
    ].join('\n');
  }
  return files;
}

describe('query understanding by shape (issue 14)', () => {
  test('plain words of a multi-word request are not exact-symbol lookups; identifier shapes and one-word requests are', () => {
    const message = describeTask('Event loop is closed');
    assert.deepEqual(message.symbols, []);
    assert.ok(message.proseSymbols.includes('loop') && message.proseSymbols.includes('closed'), JSON.stringify(message.proseSymbols));
    assert.equal(message.messagePhrase, 'Event loop is closed');
    assert.deepEqual(describeTask('loop').symbols, ['loop']);
    assert.deepEqual(describeTask('parse_qsl timeout').symbols, ['parse_qsl']);
    assert.equal(describeTask('parse_qsl timeout').messagePhrase, undefined, 'an identifier and a word are a lookup, not a message');
    assert.ok(describeTask('rename `ctx` please').symbols.includes('ctx'), 'a back-quoted word is a name');
    assert.equal(describeTask('how does the log file get rotated?').messagePhrase, undefined, 'a question is not a message');
    assert.equal(describeTask("Illegal key 'a b'").messagePhrase, "Illegal key 'a b'", 'quoted values stay in the message');
    assert.equal(describeTask('"cookie header is malformed"').messagePhrase, undefined, 'a quoted phrase alone is that phrase');
    assert.deepEqual(describeTask('how does the event loop get closed?').proseSymbols, [], 'words of a sentence are never declarations');
  });

  test('an error message typed as it appears ranks the line that raises it above declarations named like its words', async () => {
    const engine = await openEngine(fixture(collisions()).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('Event loop is closed');
    assert.equal(result.results[0].path, 'aio/base_events.py');
    assert.ok(
      result.results[0].startLine <= 7 && 7 <= result.results[0].endLine,
      `${result.results[0].startLine}-${result.results[0].endLine}`,
    );
    assert.equal(result.results[0].reason, 'exact-phrase');
    assert.ok(result.results[0].score > tierScores['exact-symbol'], `${result.results[0].score}`);
    assert.ok(!result.results.some((item) => item.reason === 'exact-symbol'), 'loop and closed are declared too often to count as symbols');
    await engine.close();
  });

  test('once a sentence-shaped message is found whole, one weaker snippet rides along, not three', async () => {
    const engine = await openEngine(fixture(collisions()).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('the following arguments are required: --name, --port');
    assert.ok(result.descriptor.natural, 'stopwords make it sentence-shaped');
    assert.equal(result.results[0]?.reason, 'exact-phrase');
    const weaker = result.results.filter((item) => item.reason !== 'exact-phrase');
    assert.ok(weaker.length <= 1, JSON.stringify(result.results.map((item) => `${item.path}:${item.startLine} ${item.reason}`)));
    const cut = result.manifest.entries.filter((entry) => entry.reason === 'low-relevance');
    assert.ok(cut.length + weaker.length >= 3, `weaker candidates existed: ${cut.length} cut`);
    await engine.close();
  });

  test('format placeholders (%s, {}, %(name)s) in the source line are tolerated', async () => {
    const engine = await openEngine(fixture(collisions()).root, { parsers: structuralParsers() });
    await engine.sync();
    const lineOf = async (query: string) => {
      const top = (await engine.search(query)).results[0];
      return { path: top.path, startLine: top.startLine, endLine: top.endLine, reason: top.reason, score: top.score };
    };
    const required = await lineOf('the following arguments are required: --name, --port');
    assert.equal(required.path, 'cli/argparse.py');
    assert.ok(required.startLine <= 5 && 5 <= required.endLine);
    assert.ok(required.score >= wholePhraseTier - 10, `${JSON.stringify(required)}`);
    const port = await lineOf("'8o80' is not a valid port number");
    assert.ok(port.path === 'cli/argparse.py' && port.startLine <= 9 && 9 <= port.endLine, JSON.stringify(port));
    const quoted = await lineOf("unknown scheme 'gopher' on host 'example'");
    assert.ok(quoted.path === 'cli/argparse.py' && quoted.startLine <= 12 && 12 <= quoted.endLine, JSON.stringify(quoted));
    const named = await lineOf('unknown scheme gopher on host example');
    assert.ok(named.path === 'cli/argparse.py' && named.startLine <= 12 && 12 <= named.endLine, JSON.stringify(named));
    assert.equal(named.reason, 'exact-phrase');
    assert.ok(named.score >= wholePhraseTier - 10, `${JSON.stringify(named)}`);
    await engine.close();
  });

  test('a rarely declared plain word still finds its declaration, below the exact phrase', async () => {
    const files = collisions();
    files['aio/rare.py'] = 'def reschedule(handle):\n    return handle\n';
    const engine = await openEngine(fixture(files).root, { parsers: structuralParsers() });
    await engine.sync();
    const result = await engine.search('reschedule handle later');
    const declared = result.results.find((item) => item.symbol === 'reschedule');
    assert.ok(declared, JSON.stringify(result.results.map((item) => item.symbol)));
    assert.equal(declared.reason, 'symbol-text', 'a plain word is weak evidence, not an exact symbol');
    await engine.close();
  });
});
