import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activeApi } from './helpers';

describe('Restricted Mode (untrusted workspace)', () => {
  it('runs untrusted and still activates', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await activeApi();
    assert.ok(api.activationMs >= 0);
  });

  it('enumerates no file, runs no git and opens no index', async () => {
    const api = await activeApi();
    await api.service.start();
    await api.service.whenIdle();
    const counters = await api.service.counters();
    assert.deepEqual(counters, { fsCalls: 0, gitCalls: 0, engineOpens: 0, workerStarted: false });
    assert.equal(api.service.workerStarted, false);
  });

  it('reports untrusted in the state, the health check and search', async () => {
    const api = await activeApi();
    assert.equal(api.service.overallState(), 'untrusted');
    assert.ok(api.service.statuses().every((status) => status.state === 'untrusted' && !status.opened));
    const report = await vscode.commands.executeCommand<string>('projectKnowledge.healthCheck');
    assert.match(report, /untrusted/);
    assert.match(report, /Restricted Mode/);
    const results = await api.service.search('anything at all');
    assert.deepEqual(results, []);
    const counters = await api.service.counters();
    assert.equal(counters.workerStarted, false);
  });

  it('no setting overrides trust', async () => {
    const api = await activeApi();
    await vscode.workspace.getConfiguration('projectKnowledge').update('enabled', true, vscode.ConfigurationTarget.Global);
    await api.service.refreshFolders();
    await api.service.whenIdle();
    assert.equal(api.service.workerStarted, false);
  });
});
