import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { auditedPresetVersion, auditedRuleIds, findSecretlintSecret } from '../../src/core/exclusion/secretlintLayer';
import { BASE64, Draw, HEX, lookalikeCorpus, seededRandom, secretCorpus } from './secretCorpus';

const seed = 20261202;
const repositoryRoot = path.resolve(__dirname, '..', '..', '..');

/** The preset's package.json, read from node_modules as installed. */
function installedPreset(): { version: string } {
  const file = path.join(repositoryRoot, 'node_modules', '@secretlint', 'secretlint-rule-preset-recommend', 'package.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string };
}

/**
 * A value each rule the secret corpus does not reach reports, in a file of the extension it
 * reads, built from random characters now: no credential-shaped text is committed.
 */
function rulePositives(draw: Draw): Array<{ rule: string; path: string; text: string }> {
  const pem = (label: string) => `-----BEGIN ${label}-----`;
  const keyLabel = 'RSA PRIVATE' + ' KEY';
  const body = `MI${draw.from(BASE64, 300)}`.replace(/(.{64})/g, '$1\n');
  const privateKey = `${pem(keyLabel)}\n${body}\n-----END ${keyLabel}-----`;
  // A 1Password service account token is base64 of a JSON object whose last byte ends a group (`fQ==`).
  let json = `{"secretKey":"${draw.mixed(90)}"}`;
  while (json.length % 3 !== 1) json = `{"secretKey":"${draw.mixed(91 + (json.length % 3))}"}`;
  const opsToken = 'op' + 's_' + Buffer.from(json).toString('base64');
  const serviceAccount = JSON.stringify({
    type: 'service_account',
    private_key_id: draw.hex(40),
    private_key: `-----BEGIN PRIVATE${' KEY'}-----\n${draw.from(BASE64, 120)}\n-----END PRIVATE${' KEY'}-----\n`,
    client_email: 'robot@acme-build.iam.gserviceaccount.com',
  });
  return [
    { rule: 'privatekey', path: 'config/deploy.txt', text: `${privateKey}\n` },
    { rule: '1password', path: 'config/agent.env', text: `OP_TOKEN=${opsToken}\n` },
    { rule: 'gcp', path: 'config/service.json', text: serviceAccount },
    { rule: 'vercel', path: 'config/vercel.env', text: `TOKEN=${'vc' + 'p_'}${draw.mixed(40)}\n` },
    { rule: 'docker', path: 'config/docker.env', text: `TOKEN=${'dckr' + '_pat_'}${draw.mixed(27)}\n` },
    { rule: 'figma', path: 'config/figma.env', text: `TOKEN=${'fig' + 'd_'}${draw.mixed(60)}\n` },
    { rule: 'cloudflare', path: 'config/cf.env', text: `TOKEN=${'cf' + 'k_'}${draw.mixed(40)}${draw.from(HEX, 8)}\n` },
    { rule: 'tailscale', path: 'config/ts.env', text: `TOKEN=${'tskey' + '-api-'}${draw.mixed(20)}-${draw.mixed(30)}\n` },
  ];
}

test('the secretlint prefilter was read from the installed rules: same preset release, every rule audited', async () => {
  assert.equal(installedPreset().version, auditedPresetVersion, 'a new preset release: read its rules again and update ruleLiterals');
  const preset = await import('@secretlint/secretlint-rule-preset-recommend');
  const recommended = preset.rules.map((rule) => rule.meta.id).filter((id) => id !== '@secretlint/secretlint-rule-filter-comments');
  assert.deepEqual([...recommended].sort(), [...auditedRuleIds].sort());
});

test('with only the rules that may report, secretlint reports what every rule reports, on every rule', { timeout: 300_000 }, async () => {
  const draw = new Draw(seededRandom(seed));
  const samples: Array<{ path: string; text: string }> = [
    ...Object.entries(secretCorpus(seed).files).map(([file, text]) => ({ path: file, text })),
    ...lookalikeCorpus(seed + 1).map((item) => ({ path: item.path, text: item.text })),
    ...rulePositives(draw),
  ];
  // Each line alone as well: a file's first finding would hide the rules of its later lines.
  const texts = samples.flatMap((sample) => [sample, ...sample.text.split('\n').map((line) => ({ path: sample.path, text: line }))]);
  const reported = new Set<string>();
  let differing = 0;
  for (const { path: file, text } of texts) {
    const every = await findSecretlintSecret(text, file, true);
    const filtered = await findSecretlintSecret(text, file);
    if (every) reported.add(every.rule.replace(/^secretlint\//, ''));
    if (JSON.stringify(filtered) !== JSON.stringify(every)) {
      differing++;
      assert.fail(`${file}: ${JSON.stringify(filtered)} with the prefilter, ${JSON.stringify(every)} with every rule`);
    }
  }
  assert.equal(differing, 0);
  const audited = auditedRuleIds.map((id) => id.replace(/^@secretlint\/secretlint-rule-/, ''));
  assert.deepEqual(
    audited.filter((rule) => !reported.has(rule)),
    [],
    'every audited rule reported some sample, so each was compared',
  );
});
