/**
 * A corpus of secrets generated at test time: provider token formats (shapes taken from gitleaks'
 * rule set and the vendors' documentation) rendered in the syntaxes real projects hold them in.
 * Everything is drawn from a seeded generator, so a run is reproducible and the repository never
 * holds a string a scanner (or push protection) would take for a credential: vendor prefixes are
 * split (`'gh' + 'p_'`) for the same reason.
 */

export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const DIGITS = '0123456789';
export const ALNUM = UPPER + LOWER + DIGITS;
export const HEX = '0123456789abcdef';
export const BASE64 = ALNUM + '+/';
export const BASE64URL = ALNUM + '-_';
const BECH32 = 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L';

export class Draw {
  constructor(private readonly random: () => number) {}

  from(alphabet: string, length: number): string {
    let out = '';
    for (let index = 0; index < length; index++) out += alphabet[Math.floor(this.random() * alphabet.length)];
    return out;
  }

  /** Random characters that certainly mix upper case, lower case and digits, as real tokens do. */
  mixed(length: number, alphabet = ALNUM): string {
    return this.from(UPPER, 2) + this.from(DIGITS, 2) + this.from(LOWER, 2) + this.from(alphabet, length - 6);
  }

  hex(length: number): string {
    return this.from(HEX, length - 2) + this.from('abcdef', 1) + this.from(DIGITS, 1);
  }

  bytes(length: number): Buffer {
    const bytes = Buffer.alloc(length);
    for (let index = 0; index < length; index++) bytes[index] = Math.floor(this.random() * 256);
    return bytes;
  }

  uuid(): string {
    return [8, 4, 4, 4, 12].map((length) => this.from(HEX, length)).join('-');
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }
}

export interface SecretValue {
  /** The text as it is written in a file (may span lines). */
  value: string;
  /** Random parts that must never reach the index: each at least 12 characters. */
  needles: string[];
}

export interface SecretFormat {
  id: string;
  provider: string;
  /** The setting name a project would give it, in UPPER_SNAKE form. */
  name: string;
  make(draw: Draw): SecretValue;
}

const dashes = '-----';
const privateKey = 'PRIVATE' + ' KEY';

function token(value: string, ...needles: string[]): SecretValue {
  return { value, needles: needles.length > 0 ? needles : [value] };
}

function pem(label: string, draw: Draw, lines = 6): SecretValue {
  const body = Array.from({ length: lines }, () => draw.bytes(48).toString('base64'));
  return { value: [`${dashes}BEGIN ${label}${dashes}`, ...body, `${dashes}END ${label}${dashes}`].join('\n'), needles: body };
}

function jwt(draw: Draw, claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.${draw.bytes(32).toString('base64url')}`;
}

/** Over fifty provider formats; `name` is what a project would call the setting. */
export const secretFormats: SecretFormat[] = [
  { id: 'aws-access-key-id', provider: 'AWS', name: 'AWS_ACCESS_KEY_ID', make: (d) => token('AK' + 'IA' + d.from(UPPER + '234567', 16)) },
  {
    id: 'aws-temporary-key-id',
    provider: 'AWS',
    name: 'AWS_SESSION_KEY_ID',
    make: (d) => token('AS' + 'IA' + d.from(UPPER + '234567', 16)),
  },
  {
    id: 'aws-secret-access-key',
    provider: 'AWS',
    name: 'AWS_SECRET_ACCESS_KEY',
    make: (d) => token(d.mixed(18, BASE64) + '/' + d.from(BASE64, 21)),
  },
  {
    id: 'gcp-api-key',
    provider: 'GCP',
    name: 'MAPS_BROWSER_KEY',
    make: (d) => token('AI' + 'za' + d.from(UPPER, 2) + d.mixed(33, BASE64URL)),
  },
  {
    id: 'gcp-service-account',
    provider: 'GCP',
    name: 'GOOGLE_APPLICATION_CREDENTIALS_JSON',
    make: (d) => {
      const key = pem(privateKey, d, 4);
      const keyId = d.hex(40);
      const json = JSON.stringify({
        type: 'service_' + 'account',
        project_id: 'acme-prod',
        private_key_id: keyId,
        private_key: key.value + '\n',
        client_email: 'ci@acme-prod.iam.gserviceaccount.com',
      });
      return { value: json, needles: [keyId, ...key.needles] };
    },
  },
  {
    id: 'azure-storage-connection-string',
    provider: 'Azure',
    name: 'AZURE_STORAGE_CONNECTION_STRING',
    make: (d) => {
      const key = d.bytes(64).toString('base64');
      const account = `acme${d.from(LOWER, 6)}`;
      return token(`DefaultEndpointsProtocol=https;AccountName=${account};AccountKey=${key};EndpointSuffix=core.windows.net`, key);
    },
  },
  {
    id: 'azure-sas-url',
    provider: 'Azure',
    name: 'EXPORT_BLOB_URL',
    make: (d) => {
      const signature = d.bytes(32).toString('base64');
      const encoded = encodeURIComponent(signature);
      const query = `sv=2022-11-02&ss=b&srt=co&sp=rl&se=2030-01-01T00:00:00Z&st=2024-01-01T00:00:00Z&spr=https&sig=${encoded}`;
      return token(`https://acme${d.from(LOWER, 6)}.blob.core.windows.net/exports?${query}`, encoded);
    },
  },
  {
    id: 'azure-ad-client-secret',
    provider: 'Azure',
    name: 'AZURE_APP_CREDENTIAL',
    make: (d) => token(d.from(ALNUM, 3) + d.from(DIGITS, 1) + 'Q~' + d.mixed(34, ALNUM + '_~.-')),
  },
  { id: 'github-pat', provider: 'GitHub', name: 'GH_RELEASE', make: (d) => token('gh' + 'p_' + d.mixed(36)) },
  { id: 'github-oauth', provider: 'GitHub', name: 'GITHUB_OAUTH', make: (d) => token('gh' + 'o_' + d.mixed(36)) },
  { id: 'github-app-token', provider: 'GitHub', name: 'GITHUB_INSTALLATION', make: (d) => token('gh' + 's_' + d.mixed(36)) },
  {
    id: 'github-fine-grained-pat',
    provider: 'GitHub',
    name: 'GH_FINE_GRAINED',
    make: (d) => token('github' + '_pat_' + d.mixed(22) + '_' + d.mixed(59)),
  },
  { id: 'gitlab-pat', provider: 'GitLab', name: 'GITLAB_PAT', make: (d) => token('gl' + 'pat-' + d.mixed(20, ALNUM + '_-')) },
  {
    id: 'gitlab-runner-token',
    provider: 'GitLab',
    name: 'RUNNER_REGISTRATION',
    make: (d) => token('gl' + 'rt-' + d.mixed(20, ALNUM + '_-')),
  },
  { id: 'gitlab-deploy-token', provider: 'GitLab', name: 'GITLAB_DEPLOY', make: (d) => token('gl' + 'dt-' + d.mixed(20, ALNUM + '_-')) },
  { id: 'gitlab-pipeline-trigger', provider: 'GitLab', name: 'GITLAB_TRIGGER', make: (d) => token('gl' + 'ptt-' + d.hex(40)) },
  {
    id: 'bitbucket-app-password',
    provider: 'Bitbucket',
    name: 'BITBUCKET_APP_PASSWORD',
    make: (d) => token('AT' + 'BB' + d.mixed(28) + d.from(HEX.toUpperCase(), 8)),
  },
  { id: 'bitbucket-client-secret', provider: 'Bitbucket', name: 'BITBUCKET_CLIENT_SECRET', make: (d) => token(d.mixed(32, ALNUM)) },
  {
    id: 'slack-bot-token',
    provider: 'Slack',
    name: 'SLACK_BOT',
    make: (d) => token('xo' + 'xb-' + d.from(DIGITS, 12) + '-' + d.from(DIGITS, 13) + '-' + d.mixed(24)),
  },
  {
    id: 'slack-user-token',
    provider: 'Slack',
    name: 'SLACK_USER',
    make: (d) => token('xo' + 'xp-' + d.from(DIGITS, 12) + '-' + d.from(DIGITS, 12) + '-' + d.from(DIGITS, 13) + '-' + d.hex(32)),
  },
  {
    id: 'slack-app-token',
    provider: 'Slack',
    name: 'SLACK_APP_LEVEL',
    make: (d) => token('xa' + 'pp-1-A' + d.from(UPPER + DIGITS, 10) + '-' + d.from(DIGITS, 13) + '-' + d.hex(64)),
  },
  {
    id: 'slack-webhook',
    provider: 'Slack',
    name: 'SLACK_WEBHOOK_URL',
    make: (d) => {
      const path = `T${d.from(UPPER + DIGITS, 10)}/B${d.from(UPPER + DIGITS, 10)}/${d.mixed(24)}`;
      return token('https://hooks.' + 'slack.com/services/' + path, path);
    },
  },
  {
    id: 'discord-webhook',
    provider: 'Discord',
    name: 'DISCORD_WEBHOOK',
    make: (d) => {
      const secret = d.mixed(68, BASE64URL);
      return token(`https://discord.com/api/web${'hooks'}/${d.from(DIGITS, 18)}/${secret}`, secret);
    },
  },
  {
    id: 'discord-bot-token',
    provider: 'Discord',
    name: 'DISCORD_BOT',
    make: (d) => token(d.pick(['M', 'N']) + d.mixed(25, ALNUM) + '.' + d.from(BASE64URL, 6) + '.' + d.mixed(38, BASE64URL)),
  },
  {
    id: 'teams-webhook',
    provider: 'Microsoft Teams',
    name: 'TEAMS_INCOMING_WEBHOOK',
    make: (d) => {
      const secret = d.hex(32);
      return token(`https://acme.webhook.office.com/webhookb2/${d.uuid()}@${d.uuid()}/Incoming${'Webhook'}/${secret}/${d.uuid()}`, secret);
    },
  },
  { id: 'stripe-secret-key', provider: 'Stripe', name: 'STRIPE', make: (d) => token('sk' + '_live_' + d.mixed(32)) },
  { id: 'stripe-restricted-key', provider: 'Stripe', name: 'STRIPE_RESTRICTED', make: (d) => token('rk' + '_live_' + d.mixed(32)) },
  {
    id: 'openai-project-key',
    provider: 'OpenAI',
    name: 'OPENAI',
    make: (d) => token('sk-' + 'proj-' + d.mixed(74, BASE64URL) + 'T3Blbk' + 'FJ' + d.mixed(74, BASE64URL)),
  },
  {
    id: 'openai-legacy-key',
    provider: 'OpenAI',
    name: 'OPENAI_LEGACY',
    make: (d) => token('sk-' + d.mixed(20) + 'T3Blbk' + 'FJ' + d.mixed(20)),
  },
  {
    id: 'anthropic-api-key',
    provider: 'Anthropic',
    name: 'ANTHROPIC',
    make: (d) => token('sk-' + 'ant-api03-' + d.mixed(93, BASE64URL) + 'AA'),
  },
  {
    id: 'anthropic-admin-key',
    provider: 'Anthropic',
    name: 'ANTHROPIC_ADMIN',
    make: (d) => token('sk-' + 'ant-admin01-' + d.mixed(93, BASE64URL) + 'AA'),
  },
  {
    id: 'huggingface-token',
    provider: 'Hugging Face',
    name: 'HF_HUB',
    make: (d) => token('h' + 'f_' + d.from(UPPER, 3) + d.from(LOWER, 3) + d.from(UPPER + LOWER, 28)),
  },
  { id: 'npm-token', provider: 'npm', name: 'NPM_PUBLISH', make: (d) => token('np' + 'm_' + d.mixed(36)) },
  { id: 'pypi-token', provider: 'PyPI', name: 'PYPI_UPLOAD', make: (d) => token('pypi-' + 'AgEIcHlwaS5vcmc' + d.mixed(70, BASE64URL)) },
  { id: 'rubygems-key', provider: 'RubyGems', name: 'GEM_HOST_API', make: (d) => token('ruby' + 'gems_' + d.hex(48)) },
  { id: 'twilio-api-key', provider: 'Twilio', name: 'TWILIO_SID', make: (d) => token('S' + 'K' + d.hex(32)) },
  { id: 'twilio-auth-token', provider: 'Twilio', name: 'TWILIO_AUTH_TOKEN', make: (d) => token(d.hex(32)) },
  {
    id: 'sendgrid-key',
    provider: 'SendGrid',
    name: 'SENDGRID',
    make: (d) => token('S' + 'G.' + d.mixed(22, BASE64URL) + '.' + d.mixed(43, BASE64URL)),
  },
  { id: 'mailgun-key', provider: 'Mailgun', name: 'MAILGUN_API_KEY', make: (d) => token('key' + '-' + d.hex(32)) },
  {
    id: 'mailgun-signing-key',
    provider: 'Mailgun',
    name: 'MAILGUN_WEBHOOK_SIGNING_KEY',
    make: (d) => token(d.hex(32) + '-' + d.hex(8) + '-' + d.hex(8)),
  },
  { id: 'shopify-access-token', provider: 'Shopify', name: 'SHOPIFY_ADMIN', make: (d) => token('shp' + 'at_' + d.hex(32)) },
  { id: 'shopify-shared-secret', provider: 'Shopify', name: 'SHOPIFY_APP', make: (d) => token('shp' + 'ss_' + d.hex(32)) },
  { id: 'heroku-api-key', provider: 'Heroku', name: 'HEROKU_API_KEY', make: (d) => token(d.uuid()) },
  { id: 'heroku-api-key-v2', provider: 'Heroku', name: 'HEROKU', make: (d) => token('HR' + 'KU-AA' + d.mixed(58, BASE64URL)) },
  { id: 'digitalocean-pat', provider: 'DigitalOcean', name: 'DIGITALOCEAN', make: (d) => token('do' + 'p_v1_' + d.hex(64)) },
  { id: 'digitalocean-oauth', provider: 'DigitalOcean', name: 'DO_OAUTH', make: (d) => token('do' + 'o_v1_' + d.hex(64)) },
  { id: 'datadog-api-key', provider: 'Datadog', name: 'DD_API_KEY', make: (d) => token(d.hex(32)) },
  { id: 'datadog-app-key', provider: 'Datadog', name: 'DATADOG_APP_KEY', make: (d) => token(d.hex(40)) },
  { id: 'newrelic-user-key', provider: 'New Relic', name: 'NEW_RELIC', make: (d) => token('NR' + 'AK-' + d.from(UPPER + DIGITS, 27)) },
  {
    id: 'newrelic-insert-key',
    provider: 'New Relic',
    name: 'NEW_RELIC_INSERT',
    make: (d) => token('NR' + 'II-' + d.mixed(32, ALNUM + '-_')),
  },
  { id: 'newrelic-license-key', provider: 'New Relic', name: 'NEW_RELIC_LICENSE_KEY', make: (d) => token(d.hex(36) + 'NRAL') },
  { id: 'cloudflare-api-token', provider: 'Cloudflare', name: 'CLOUDFLARE_API_TOKEN', make: (d) => token(d.mixed(40, BASE64URL)) },
  { id: 'cloudflare-global-key', provider: 'Cloudflare', name: 'CLOUDFLARE_GLOBAL_API_KEY', make: (d) => token(d.hex(37)) },
  {
    id: 'cloudflare-origin-ca-key',
    provider: 'Cloudflare',
    name: 'CF_ORIGIN_CA',
    make: (d) => token('v1.0-' + d.hex(24) + '-' + d.hex(146)),
  },
  { id: 'vault-service-token', provider: 'Vault', name: 'VAULT', make: (d) => token('hv' + 's.' + d.mixed(95, BASE64URL)) },
  { id: 'vault-batch-token', provider: 'Vault', name: 'VAULT_BATCH', make: (d) => token('hv' + 'b.' + d.mixed(140, BASE64URL)) },
  { id: 'doppler-personal-token', provider: 'Doppler', name: 'DOPPLER', make: (d) => token('dp' + '.pt.' + d.mixed(43)) },
  { id: 'doppler-service-token', provider: 'Doppler', name: 'DOPPLER_SERVICE', make: (d) => token('dp' + '.st.prd.' + d.mixed(40)) },
  {
    id: 'jwt',
    provider: 'JWT',
    name: 'SESSION_BEARER',
    make: (d) => token(jwt(d, { sub: d.from(DIGITS, 10), iat: 1700000000, scope: 'admin' })),
  },
  {
    id: 'url-basic-auth',
    provider: 'Basic auth (URL)',
    name: 'GIT_REMOTE',
    make: (d) => {
      const password = d.mixed(20);
      return token(`https://deploy:${password}@git.acme-corp.io/platform/api.git`, password);
    },
  },
  {
    id: 'database-url',
    provider: 'Basic auth (URL)',
    name: 'DATABASE_URL',
    make: (d) => {
      const password = d.mixed(18);
      return token(`postgres://app:${password}@db.prod.acme-corp.io:5432/app`, password);
    },
  },
  {
    id: 'authorization-basic',
    provider: 'Basic auth (header)',
    name: 'UPSTREAM_AUTHORIZATION',
    make: (d) => {
      const encoded = Buffer.from(`deploy:${d.mixed(16)}`).toString('base64');
      return token('Basic ' + encoded, encoded);
    },
  },
  {
    id: 'authorization-bearer',
    provider: 'Bearer header',
    name: 'UPSTREAM_AUTHORIZATION',
    make: (d) => {
      const secret = d.mixed(40, BASE64URL);
      return token('Bearer ' + secret, secret);
    },
  },
  { id: 'rsa-private-key', provider: 'PEM', name: 'SIGNING_PEM', make: (d) => pem('RSA ' + privateKey, d) },
  { id: 'ec-private-key', provider: 'PEM', name: 'TLS_EC_PEM', make: (d) => pem('EC ' + privateKey, d, 3) },
  { id: 'openssh-private-key', provider: 'OpenSSH', name: 'DEPLOY_SSH', make: (d) => pem('OPENSSH ' + privateKey, d) },
  { id: 'pgp-private-key', provider: 'PGP', name: 'RELEASE_GPG', make: (d) => pem('PGP ' + privateKey + ' BLOCK', d) },
  {
    id: 'putty-private-key',
    provider: 'PuTTY',
    name: 'PUTTY_PPK',
    make: (d) => {
      const body = [d.bytes(48).toString('base64'), d.bytes(48).toString('base64')];
      const mac = d.hex(64);
      const lines = [
        'PuTTY-User-Key-File-' + '3: ssh-ed25519',
        'Encryption: none',
        'Comment: deploy',
        'Public-Lines: 1',
        d.bytes(40).toString('base64'),
        'Private-Lines: 2',
        ...body,
        'Private-MAC: ' + mac,
      ];
      return { value: lines.join('\n'), needles: [...body, mac] };
    },
  },
  { id: 'age-secret-key', provider: 'age', name: 'SOPS_AGE', make: (d) => token('AGE-' + 'SECRET-KEY-1' + d.from(BECH32, 58)) },
  { id: 'databricks-token', provider: 'Databricks', name: 'DATABRICKS', make: (d) => token('da' + 'pi' + d.hex(32)) },
  { id: 'linear-api-key', provider: 'Linear', name: 'LINEAR', make: (d) => token('lin' + '_api_' + d.mixed(40)) },
  { id: 'postman-api-key', provider: 'Postman', name: 'POSTMAN', make: (d) => token('PM' + 'AK-' + d.hex(24) + '-' + d.hex(34)) },
  {
    id: 'grafana-service-account',
    provider: 'Grafana',
    name: 'GRAFANA_SA',
    make: (d) => token('gl' + 'sa_' + d.mixed(32) + '_' + d.hex(8)),
  },
  { id: 'grafana-cloud-token', provider: 'Grafana', name: 'GRAFANA_CLOUD', make: (d) => token('gl' + 'c_' + d.mixed(60, BASE64)) },
  { id: 'sentry-user-token', provider: 'Sentry', name: 'SENTRY', make: (d) => token('sntry' + 'u_' + d.hex(64)) },
  { id: 'planetscale-token', provider: 'PlanetScale', name: 'PLANETSCALE', make: (d) => token('pscale' + '_tkn_' + d.mixed(43)) },
  { id: 'pulumi-token', provider: 'Pulumi', name: 'PULUMI', make: (d) => token('pu' + 'l-' + d.hex(40)) },
  { id: 'atlassian-api-token', provider: 'Atlassian', name: 'JIRA_CLOUD', make: (d) => token('ATATT' + '3x' + d.mixed(184, BASE64URL)) },
  {
    id: 'dynatrace-token',
    provider: 'Dynatrace',
    name: 'DYNATRACE',
    make: (d) => token('dt0c01' + '.' + d.from(UPPER + DIGITS, 24) + '.' + d.mixed(64)),
  },
  {
    id: 'telegram-bot-token',
    provider: 'Telegram',
    name: 'TELEGRAM_BOT',
    make: (d) => token(d.from(DIGITS, 10) + ':AA' + d.mixed(33, BASE64URL)),
  },
  { id: 'mailchimp-key', provider: 'Mailchimp', name: 'MAILCHIMP_API_KEY', make: (d) => token(d.hex(32) + '-us' + d.from(DIGITS, 2)) },
  { id: 'square-access-token', provider: 'Square', name: 'SQUARE', make: (d) => token('EA' + 'AA' + d.mixed(60, BASE64URL)) },
  { id: 'square-oauth-secret', provider: 'Square', name: 'SQUARE_APP', make: (d) => token('sq0' + 'csp-' + d.mixed(43, BASE64URL)) },
  { id: 'alibaba-access-key', provider: 'Alibaba Cloud', name: 'ALIYUN_ACCESS_KEY_ID', make: (d) => token('LT' + 'AI' + d.mixed(20)) },
  { id: 'brevo-key', provider: 'Brevo', name: 'BREVO', make: (d) => token('xkey' + 'sib-' + d.hex(64) + '-' + d.mixed(16)) },
  { id: 'notion-token', provider: 'Notion', name: 'NOTION', make: (d) => token('nt' + 'n_' + d.from(DIGITS, 11) + d.mixed(35)) },
  { id: 'perplexity-key', provider: 'Perplexity', name: 'PERPLEXITY', make: (d) => token('pp' + 'lx-' + d.mixed(48)) },
  { id: 'groq-key', provider: 'Groq', name: 'GROQ', make: (d) => token('gs' + 'k_' + d.mixed(52)) },
  { id: 'okta-token', provider: 'Okta', name: 'OKTA_API_TOKEN', make: (d) => token('00' + d.mixed(40, BASE64URL)) },
  {
    id: 'generic-password',
    provider: 'Generic',
    name: 'DB_PASSWORD',
    make: (d) => token(d.mixed(10, ALNUM) + d.from('!#%^*', 2) + d.mixed(10, ALNUM)),
  },
  { id: 'generic-client-secret', provider: 'Generic', name: 'OAUTH_CLIENT_SECRET', make: (d) => token(d.mixed(32, BASE64URL)) },
  { id: 'generic-signing-key', provider: 'Generic', name: 'WEBHOOK_SIGNING_KEY', make: (d) => token(d.hex(64)) },
];

// --- Syntaxes -----------------------------------------------------------------------------------

export interface Syntax {
  id: string;
  /** The file to write for a format, relative to the fixture root. */
  file(formatId: string): string;
  render(name: string, value: string, variant: number): string;
}

function camel(name: string): string {
  return name.toLowerCase().replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

function xmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Single-quoted, escaped the way JavaScript, Python and PHP read it. */
function singleQuoted(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

export const syntaxes: Syntax[] = [
  {
    id: 'ts',
    file: (id) => `src/config/${id}.ts`,
    render: (name, value) =>
      value.includes('\n')
        ? `export const ${camel(name)} = \`${value}\`;\n`
        : `import { connect } from './client';\n\nexport const ${camel(name)} = '${value}';\n` +
          `export const client = connect(${camel(name)});\n`,
  },
  {
    id: 'python',
    file: (id) => `app/settings/${id.replace(/-/g, '_')}.py`,
    render: (name, value) => (value.includes('\n') ? `${name} = """${value}"""\n` : `import os\n\nDEBUG = False\n${name} = "${value}"\n`),
  },
  {
    id: 'yaml',
    file: (id) => `deploy/${id}.yaml`,
    render: (name, value, variant) => {
      if (value.includes('\n')) return `apiVersion: v1\nkind: ConfigMap\ndata:\n  ${name.toLowerCase()}: |\n${indent(value, '    ')}\n`;
      // A Kubernetes env entry, a value on the line after its key, and a plain mapping.
      if (variant % 3 === 0) return `containers:\n  - name: api\n    env:\n      - name: ${name}\n        value: "${value}"\n`;
      if (variant % 3 === 1) return `service:\n  ${name.toLowerCase()}:\n    ${value}\n`;
      return `service:\n  ${name.toLowerCase()}: ${value}\n`;
    },
  },
  {
    id: 'json',
    file: (id) => `config/${id}.json`,
    render: (name, value) => JSON.stringify({ service: { name: 'api', [camel(name)]: value } }, null, 2) + '\n',
  },
  {
    id: 'makefile',
    file: (id) => `ops/${id}/Makefile`,
    render: (name, value, variant) =>
      value.includes('\n')
        ? `define ${name}\n${value}\nendef\nexport ${name}\n\nall:\n\t@echo ok\n`
        : `${name} ${variant % 2 === 0 ? '?=' : ':='} ${value}\n\ndeploy:\n\t./deploy.sh --token "$(${name})"\n`,
  },
  {
    id: 'xml',
    file: (id) => `conf/${id}.xml`,
    render: (name, value, variant) =>
      variant % 2 === 0
        ? `<?xml version="1.0"?>\n<settings>\n  <${camel(name)}>${xmlEscape(value)}</${camel(name)}>\n</settings>\n`
        : `<?xml version="1.0"?>\n<properties>\n  <property name="${name.toLowerCase().replace(/_/g, '.')}">${xmlEscape(value)}</property>\n` +
          '</properties>\n',
  },
  {
    id: 'env',
    file: (id) => `docker/${id}/env.list`,
    render: (name, value) =>
      value.includes('\n') ? `NODE_ENV=production\n${name}="${value}"\n` : `NODE_ENV=production\n${name}=${value}\n`,
  },
  {
    id: 'notebook',
    file: (id) => `notebooks/${id}.ipynb`,
    render: (name, value) => {
      const code = value.includes('\n') ? `${name} = """${value}"""\n` : `os.environ["${name}"] = "${value}"\n`;
      const source = ['import os\n', ...code.split(/(?<=\n)/)];
      const notebook = {
        cells: [{ cell_type: 'code', execution_count: 1, metadata: {}, outputs: [], source }],
        metadata: { kernelspec: { name: 'python3' } },
        nbformat: 4,
        nbformat_minor: 5,
      };
      return JSON.stringify(notebook, null, 1) + '\n';
    },
  },
  {
    id: 'php',
    file: (id) => `web/config/${id}.php`,
    render: (name, value, variant) => {
      const literal = singleQuoted(value);
      if (variant % 3 === 0) return `<?php\nreturn [\n    'debug' => false,\n    '${name.toLowerCase()}' => ${literal},\n];\n`;
      if (variant % 3 === 1) return `<?php\n$${camel(name)} = '';\n$${camel(name)} .= ${literal};\n`;
      return `<?php\ndefine('${name}', ${literal});\n`;
    },
  },
  {
    id: 'java',
    file: (id) => `src/main/java/acme/${camel(id.replace(/-/g, '_')).replace(/^./, (c) => c.toUpperCase())}Config.java`,
    render: (name, value) =>
      `package acme;\n\nclass Config {\n  static void init() {\n` +
      `    System.setProperty("${name}", ${JSON.stringify(value)});\n  }\n}\n`,
  },
];

export interface PlantedSecret {
  format: SecretFormat;
  syntax: Syntax;
  path: string;
  needles: string[];
}

/** Every format in every syntax, one secret per file, each a fresh draw. */
export function secretCorpus(seed: number): { files: Record<string, string>; planted: PlantedSecret[] } {
  const draw = new Draw(seededRandom(seed));
  const files: Record<string, string> = {};
  const planted: PlantedSecret[] = [];
  secretFormats.forEach((format, formatIndex) => {
    syntaxes.forEach((syntax, syntaxIndex) => {
      const secret = format.make(draw);
      const path = syntax.file(format.id);
      files[path] = syntax.render(format.name, secret.value, formatIndex + syntaxIndex);
      planted.push({ format, syntax, path, needles: secret.needles });
    });
  });
  return { files, planted };
}

// --- False positives ----------------------------------------------------------------------------

export interface Lookalike {
  kind: string;
  path: string;
  text: string;
}

/**
 * Files that look secret to a naive scanner but hold none: documented examples, placeholders,
 * references to the environment, hashes, identifiers, images and minified code.
 */
export function lookalikeCorpus(seed: number): Lookalike[] {
  const draw = new Draw(seededRandom(seed));
  const out: Lookalike[] = [];
  /** Adds one file; `lines` are joined with newlines and the file ends with one. */
  const add = (kind: string, path: string, ...lines: string[]) => out.push({ kind, path, text: lines.join('\n') + '\n' });
  const exampleId = 'AK' + 'IA' + 'IOSFODNN7' + 'EXAMPLE';
  const awsDocsExample = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY';
  for (let index = 0; index < 6; index++) {
    add(
      'documented example',
      `docs/aws-${index}.md`,
      'Configure the CLI:',
      '',
      `    aws_access_key_id = ${exampleId}`,
      `    aws_secret_access_key = ${awsDocsExample}`,
    );
  }
  add(
    'documented example',
    'src/aws.test.ts',
    `const credentials = { accessKeyId: '${exampleId}', secretAccessKey: '${awsDocsExample}' };`,
  );
  add('documented example', 'app/aws_example.py', `AWS_ACCESS_KEY_ID = "${exampleId}"`, `AWS_SECRET_ACCESS_KEY = "${awsDocsExample}"`);
  add('documented example', 'docs/slack.md', 'Webhook: https://hooks.' + 'slack.com/services/T00000000/B00000000/' + 'X'.repeat(24));
  add('documented example', 'docs/github.md', 'Tokens look like `' + 'gh' + 'p_' + 'x'.repeat(36) + '`.');
  add(
    'documented example',
    'docs/stripe.md',
    'Use a key like `' + 'sk' + '_live_' + 'x'.repeat(24) + '` or `' + 'sk' + '_test_' + '0'.repeat(24) + '`.',
  );
  add('documented example', 'docs/jwt.md', 'A JWT has three parts: `header.payload.signature`, e.g. `eyJhbGciOi...`.');
  const placeholders = [
    'xxxxxxxxxxxxxxxxxxxxxxxx',
    '<your-api-key>',
    '${API_TOKEN}',
    '$API_TOKEN',
    '{{ api_token }}',
    'YOUR_API_KEY_HERE',
    'changeme',
    '********',
    '<replace-me>',
    '%API_TOKEN%',
    '${{ secrets.API_TOKEN }}',
    'REPLACE_WITH_YOUR_TOKEN',
    'your-token-here',
    '',
    'TODO',
    'null',
  ];
  placeholders.forEach((value, index) => {
    add(
      'placeholder',
      `config/placeholder-${index}.yaml`,
      'service:',
      `  api_token: "${value}"`,
      `  password: ${value === '' ? '""' : value}`,
    );
    add('placeholder', `docker/placeholder-${index}/env.list`, `API_TOKEN=${value}`, `DB_PASSWORD=${value}`);
  });
  for (let index = 0; index < 8; index++) {
    add(
      'environment reference',
      `src/env-${index}.ts`,
      "export const apiKey = process.env.API_KEY ?? '';",
      "export const token = process.env['GITHUB_TOKEN'];",
      'const secret = env.CLIENT_SECRET;',
      "if (!apiKey) throw new Error('API_KEY is not set');",
    );
    add(
      'environment reference',
      `app/env_${index}.py`,
      'import os',
      'API_KEY = os.environ["API_KEY"]',
      'DB_PASSWORD = os.getenv("DB_PASSWORD", "")',
      'SECRET_KEY = os.environ.get("SECRET_KEY")',
    );
    add(
      'environment reference',
      `src/main/java/acme/Env${index}.java`,
      'class Env {',
      '  String token = System.getenv("API_TOKEN");',
      '  String password = System.getProperty("db.password");',
      '}',
    );
  }
  add(
    'environment reference',
    'deploy/k8s-secret-ref.yaml',
    'env:',
    '  - name: API_TOKEN',
    '    valueFrom:',
    '      secretKeyRef:',
    '        name: api',
    '        key: token',
  );
  add('environment reference', 'ops/Makefile', 'API_TOKEN ?= $(shell cat /run/secrets/api_token)', 'DB_PASSWORD := ${DB_PASSWORD}');
  add(
    'environment reference',
    '.github/workflows/ci.yml',
    'env:',
    '  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}',
    '  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}',
  );
  for (let index = 0; index < 8; index++) {
    const sri = 'sha512-' + draw.bytes(64).toString('base64');
    add(
      'SRI hash',
      `web/index-${index}.html`,
      `<script src="https://cdn.example.net/lib.js" integrity="${sri}" crossorigin="anonymous"></script>`,
    );
    add(
      'git SHA',
      `docs/release-${index}.md`,
      `Released from commit ${draw.from(HEX, 40)} (parent ${draw.from(HEX, 40)}).`,
      `head: ${draw.from(HEX, 40)}`,
    );
    const ids = { id: draw.uuid(), tenantId: draw.uuid(), clientId: draw.uuid(), requestId: draw.uuid() };
    add('UUID', `config/ids-${index}.json`, JSON.stringify(ids, null, 2));
    add(
      'checksum',
      `meta/checksums-${index}.txt`,
      `sha256 = "${draw.from(HEX, 64)}"`,
      `checksum: ${draw.from(HEX, 64)}`,
      `md5 ${draw.from(HEX, 32)}`,
    );
    add(
      'base64 image',
      `web/icon-${index}.css`,
      `.icon { background: url("data:image/png;base64,${draw.bytes(300).toString('base64')}"); }`,
    );
  }
  for (let index = 0; index < 6; index++) {
    const integrity = 'sha512-' + draw.bytes(64).toString('base64');
    add(
      'lockfile-like integrity',
      `pkg/deps-${index}.json`,
      JSON.stringify({ name: 'x', resolved: `https://registry.example.net/x/-/x-1.0.${index}.tgz`, integrity }, null, 2),
    );
    add(
      'minified code',
      `web/assets/app-${index}.js`,
      '!function(e,t){"use strict";var n={token:null,apiKey:t.apiKey||"",key:"Enter"};' +
        'function r(o){return n.token=o.token,o.secret||e.secret}e.auth=function(o){return r(o)},' +
        'e.key=function(k){return k.key===n.key}}(window,{});',
    );
    add(
      'code handling tokens',
      `src/auth-${index}.ts`,
      'const token = getToken(request);',
      'const password = req.body.password;',
      "headers['Authorization'] = `Bearer ${token}`;",
      'const tokenizer = new Tokenizer(source);',
    );
    add(
      'identifier values',
      `src/names-${index}.ts`,
      "const ACCESS_TOKEN_KEY = 'app.session.accessToken';",
      "const tokenType = 'Bearer';",
      "const secretName = 'prod-db-credentials-v2';",
      "const passwordField = 'user_password_confirmation';",
    );
  }
  add(
    'URL without credentials',
    'docs/urls.md',
    'https://user@example.com/path',
    'postgres://postgres:postgres@localhost:5432/app',
    'mongodb://admin:${MONGO_PASSWORD}@mongo:27017',
  );
  add('public key', 'keys/deploy.pub.txt', 'ssh-ed25519 ' + draw.bytes(32).toString('base64') + ' deploy@acme');
  add(
    'PEM certificate',
    'certs/ca.txt',
    `${dashes}BEGIN CERTIFICATE${dashes}`,
    draw.bytes(48).toString('base64'),
    draw.bytes(48).toString('base64'),
    `${dashes}END CERTIFICATE${dashes}`,
  );
  add(
    'private-key header in docs',
    'docs/keys.md',
    'Paste your key, starting with `-----BEGIN RSA ' + privateKey + '-----`, into the field.',
  );
  return out;
}

/**
 * Every cell of every table (FTS shadow tables and stale rows included), lower-cased, one string per
 * cell; blobs read both as UTF-8 and byte for byte. The corpus test and the gitleaks recall check scan these.
 */
export function databaseCells(database: { exec(sql: string): { columns: string[]; values: unknown[][] }[] }): string[] {
  const tables = database.exec("SELECT name FROM sqlite_master WHERE type = 'table'")[0].values.map((row) => String(row[0]));
  const cells: string[] = [];
  for (const table of tables) {
    const result = database.exec(`SELECT * FROM "${table.replace(/"/g, '""')}"`)[0];
    for (const row of result?.values ?? []) {
      for (const cell of row) {
        if (cell === null || cell === undefined) continue;
        const bytes = cell instanceof Uint8Array ? Buffer.from(cell) : undefined;
        if (bytes) cells.push(bytes.toString('latin1').toLowerCase(), bytes.toString('utf8').toLowerCase());
        // sql.js cells are numbers, strings or byte arrays (null was skipped above).
        else if (typeof cell === 'string' || typeof cell === 'number') cells.push(String(cell).toLowerCase());
        else throw new Error(`unexpected ${typeof cell} cell in ${table}`);
      }
    }
  }
  return cells;
}
