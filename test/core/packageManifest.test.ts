import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const repository = path.resolve(__dirname, '..', '..', '..');
interface Manifest {
  engines: { vscode: string };
  devDependencies: Record<string, string>;
  contributes: { configuration: { properties: Record<string, { default: unknown }> } };
}
const manifest = JSON.parse(fs.readFileSync(path.join(repository, 'package.json'), 'utf8')) as Manifest;
const nls = JSON.parse(fs.readFileSync(path.join(repository, 'package.nls.json'), 'utf8')) as Record<string, string>;

test("the README's settings table matches package.json", () => {
  // Keys are dotted paths (`projectKnowledge.ranking.mode`), each part a word.
  const readme = fs.readFileSync(path.join(repository, 'README.md'), 'utf8');
  const rows = [...readme.matchAll(/^\| `(projectKnowledge(?:\.[A-Za-z]+)+)` \| `([^`]*)` \|/gm)].map((match) => [match[1], match[2]]);
  const properties = manifest.contributes.configuration.properties;
  const expected = Object.entries(properties).map(([key, value]) => [key, JSON.stringify(value.default)]);
  assert.deepEqual(rows.sort(), expected.sort());
});

test('every %placeholder% in package.json has an English string', () => {
  const placeholders = [...JSON.stringify(manifest).matchAll(/"%([^%"]+)%"/g)].map((match) => match[1]);
  assert.ok(placeholders.length > 20);
  for (const key of placeholders) assert.ok(typeof nls[key] === 'string' && nls[key].length > 0, key);
});

test('the l10n bundle lists every vscode.l10n.t message', () => {
  const check = spawnSync(process.execPath, [path.join(repository, 'scripts', 'l10n-export.mjs'), '--check'], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
  assert.match(check.stdout, /^l10n bundle up to date \([1-9]\d* messages\)$/m);
});

test('engines.vscode and @types/vscode agree and stay within code-server 1.139', () => {
  const engine = manifest.engines.vscode.replace(/^\^/, '');
  const types = manifest.devDependencies['@types/vscode'].replace(/^[~^]/, '');
  assert.equal(engine.split('.').slice(0, 2).join('.'), types.split('.').slice(0, 2).join('.'));
  assert.ok(Number(engine.split('.')[1]) <= 139);
});
