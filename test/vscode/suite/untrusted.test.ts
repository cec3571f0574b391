import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { askProject, installFakeModel } from '../fakeModel/driver';
import { activeApi, extensionId } from './helpers';

describe('Restricted Mode (untrusted workspace)', () => {
  it('runs untrusted and still activates', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await activeApi();
    const extension = vscode.extensions.getExtension(extensionId);
    assert.equal(extension?.isActive, true);
    assert.equal(extension.exports, api, 'the API is what activate returned');
    // Activation registered the commands even here; they refuse to index, but they exist.
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('projectKnowledge.healthCheck'), 'the health check command is registered');
    assert.equal(api.index.workerStarted, false);
  });

  it('enumerates no file, runs no git and opens no index', async () => {
    const api = await activeApi();
    await api.index.start();
    await api.index.whenIdle();
    const counters = await api.index.counters();
    assert.deepEqual(counters, { fsCalls: 0, gitCalls: 0, engineOpens: 0, workerStarted: false });
    assert.equal(api.index.workerStarted, false);
  });

  it('reports untrusted in the state, the health check and search', async () => {
    const api = await activeApi();
    assert.equal(api.index.status().state, 'untrusted');
    assert.ok(api.index.status().folders.every((status) => status.state === 'untrusted' && !status.opened));
    const report = await vscode.commands.executeCommand<string>('projectKnowledge.healthCheck');
    assert.match(report, /untrusted/);
    assert.match(report, /Restricted Mode/);
    const results = await api.index.search('anything at all');
    assert.deepEqual(results, []);
    const counters = await api.index.counters();
    assert.equal(counters.workerStarted, false);
  });

  it('no setting overrides trust', async () => {
    const api = await activeApi();
    await vscode.workspace.getConfiguration('projectKnowledge').update('enabled', true, vscode.ConfigurationTarget.Global);
    await api.index.refreshFolders();
    await api.index.whenIdle();
    assert.equal(api.index.workerStarted, false);
  });
});

describe('Restricted Mode: @project and #projectKnowledge', () => {
  it('the tool returns an error the model can act on, and reads nothing', async () => {
    const api = await activeApi();
    const result = await vscode.lm.invokeTool('projectKnowledge_search', {
      input: { query: 'parseCookieHeader' },
      toolInvocationToken: undefined,
    });
    const text = result.content
      .map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : JSON.stringify(part)))
      .join('\n');
    assert.match(text, /this workspace is not trusted, so no project source may be read/);
    assert.match(text, /Ask the user to trust the workspace, or continue without project context\./);
    assert.ok(!text.includes('[PROJECT SOURCE'), 'no quoted source');
    assert.equal(api.index.workerStarted, false);
  });

  it('the participant, asked through the chat UI, explains Restricted Mode and sends the model nothing', async function () {
    this.timeout(240_000);
    const api = await activeApi();
    const fake = await installFakeModel();
    fake.reset();
    const answer = await askProject(api, fake, '@project how does parseCookieHeader work?');
    assert.match(
      answer.transcript.markdown,
      /This workspace is in Restricted Mode, so Project Knowledge does not read or quote any project source\./,
    );
    assert.ok(
      answer.transcript.buttons.some((button) => button.command === 'workbench.trust.manage'),
      'a Manage Workspace Trust button',
    );
    assert.deepEqual(answer.transcript.references, []);
    assert.deepEqual(answer.requests, [], 'the model received nothing');
    const search = await askProject(api, fake, '@project /search parseCookieHeader');
    assert.match(search.transcript.markdown, /Restricted Mode/);
    assert.deepEqual(search.transcript.anchors, []);
    // Pins and memory live beside the index: nothing to curate, nothing written.
    const remember = await askProject(api, fake, '@project /remember Exports default to SingleFile');
    assert.match(remember.transcript.markdown, /Restricted Mode/);
    assert.doesNotMatch(remember.transcript.markdown, /Remembered as/);
    assert.deepEqual(fake.requests, []);
    assert.equal(api.index.workerStarted, false, 'no index was opened');
  });
});

describe('Restricted Mode: navigation tools and MCP', () => {
  it('offers no MCP server definition', async () => {
    const api = await activeApi();
    assert.deepEqual(await api.mcp?.provideMcpServerDefinitions(), []);
    assert.equal(api.index.workerStarted, false);
  });

  it('each navigation tool answers that the workspace is not trusted and reads nothing', async () => {
    const api = await activeApi();
    const inputs: Array<[string, Record<string, unknown>]> = [
      ['projectKnowledge_findSymbol', { name: 'parseCookieHeader' }],
      ['projectKnowledge_references', { symbol: 'parseCookieHeader' }],
      ['projectKnowledge_outline', { path: '.' }],
      ['projectKnowledge_read', { citation: 'src/cookies.ts#L1-L2' }],
    ];
    for (const [name, input] of inputs) {
      const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
      const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('\n');
      assert.match(text, /this workspace is not trusted, so no project source may be read/, name);
    }
    const counters = await api.index.counters();
    assert.deepEqual(counters, { fsCalls: 0, gitCalls: 0, engineOpens: 0, workerStarted: false });
  });
});
