import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, test } from 'node:test';
import { Fixture, openEngine, randomFrom, tempFile } from './fixtures';

const upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const alnum = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const base64url = alnum + '-_';

/** Secret values built at test time, so no literal secret is ever committed. */
function plantedSecrets(): Record<string, string> {
  return {
    awsAccessKey: 'AKIA' + randomFrom(upper, 16),
    googleKey: 'AI' + 'za' + randomFrom(base64url, 35),
    githubToken: 'gh' + 'p_' + randomFrom(alnum, 36),
    slackToken: 'xo' + 'xb-' + randomFrom('0123456789', 12) + '-' + randomFrom(alnum, 24),
    stripeKey: 'sk' + '_live_' + randomFrom(alnum, 28),
    npmToken: 'np' + 'm_' + randomFrom(alnum, 36),
    jwt: 'ey' + 'J' + randomFrom(base64url, 30) + '.ey' + 'J' + randomFrom(base64url, 40) + '.' + randomFrom(base64url, 43),
    // Typed like a password: letters, two digits and two symbols (a value of letters only reads as a name).
    password: randomFrom(alnum + '!@#%^&*', 10) + randomFrom('0123456789', 2) + randomFrom('!@#%^&*', 2) + randomFrom(alnum, 10),
    privateKeyBody: randomFrom(alnum + '+/', 64),
  };
}

const fixtures: Fixture[] = [];
after(() => fixtures.forEach((created) => created.cleanup()));

test('planted secrets of every pattern are absent from the database bytes and every output', async () => {
  const secrets = plantedSecrets();
  const dashes = '-----';
  const files: Record<string, string> = {
    'config/aws.ts': `export const accessKeyId = "${secrets.awsAccessKey}";\n`,
    'config/google.js': `const key = '${secrets.googleKey}';\n`,
    'scripts/release.sh': `export GITHUB_TOKEN=${secrets.githubToken}\n`,
    'notify.py': `SLACK = "${secrets.slackToken}"\n`,
    'billing.rb': `Stripe.api_key = "${secrets.stripeKey}"\n`,
    'publish.txt': `token ${secrets.npmToken}\n`,
    'auth/session.ts': `const header = "Bearer ${secrets.jwt}";\n`,
    'db/settings.py': `DATABASE_PASSWORD = "${secrets.password}"\n`,
    'deploy/key.txt': `${dashes}BEGIN RSA PRIVATE KEY${dashes}\n${secrets.privateKeyBody}\n${secrets.privateKeyBody}\n${dashes}END RSA PRIVATE KEY${dashes}\n`,
    '.env': `API_TOKEN=${secrets.password}\n`,
    '.npmrc': `//registry.example.invalid/:_authToken=${secrets.npmToken}\n`,
    id_rsa: `${dashes}BEGIN OPENSSH PRIVATE KEY${dashes}\n${secrets.privateKeyBody}\n`,
    // Handles credentials but holds none: it must still be indexed.
    'src/credentials.ts':
      'export function apiKey(): string {\n  const token = process.env.API_KEY;\n  if (!token) throw new Error("API_KEY is not set");\n  return token;\n}\n',
  };
  const project = new Fixture(files);
  fixtures.push(project);
  const dbPath = tempFile('secrets.sqlite');
  const engine = await openEngine(project.root, { dbPath });
  const report = await engine.sync();
  const indexed = [...engine.store.catalog.files().keys()];
  assert.deepEqual(indexed, ['src/credentials.ts']);
  assert.ok((report.exclusionsByReason['secret-content'] ?? 0) >= 8, JSON.stringify(report.exclusionsByReason));

  const outputs: string[] = [];
  for (const query of [
    'accessKeyId',
    'key',
    'GITHUB_TOKEN',
    'SLACK',
    'Stripe api_key',
    'token',
    'Bearer header',
    'DATABASE_PASSWORD',
    'RSA PRIVATE KEY',
    'API_TOKEN',
    'authToken',
    'credentials.ts',
  ]) {
    const context = await engine.context(query);
    outputs.push(JSON.stringify(context));
  }
  outputs.push(JSON.stringify(await engine.health()));
  await engine.close();

  const databaseBytes = fs.readFileSync(dbPath).toString('latin1');
  for (const [name, value] of Object.entries(secrets)) {
    assert.ok(!databaseBytes.includes(value), `${name} reached the database`);
    assert.ok(!databaseBytes.toLowerCase().includes(value.toLowerCase()), `${name} reached the database (lower-cased)`);
    for (const output of outputs) assert.ok(!output.includes(value), `${name} reached an output`);
  }
  assert.ok(outputs.some((output) => output.includes('src/credentials.ts')));
});

test('a file that becomes secret loses all its rows, stale ones included', async () => {
  const secrets = plantedSecrets();
  const project = new Fixture({ 'a.ts': 'export const safe = "nothing here";\n' });
  fixtures.push(project);
  const engine = await openEngine(project.root);
  await engine.sync();
  project.edit('a.ts', 'export const safe = "changed once";\n');
  await engine.sync();
  project.edit('a.ts', `export const leaked = "${secrets.githubToken}";\n`);
  await engine.sync();
  // a.ts is the only file: no chunk row of any file, current or stale, is left.
  const rows = engine.store.database.exec('SELECT COUNT(*) FROM project_snippets')[0].values[0][0];
  assert.equal(rows, 0);
  assert.equal(engine.store.catalog.exclusion('a.ts')?.reason, 'secret-content');
  const bytes = Buffer.from(engine.store.exportBytes()).toString('latin1');
  assert.ok(!bytes.includes(secrets.githubToken));
  await engine.close();
});
