/**
 * Provider token formats that identify themselves by a fixed prefix, so they are secrets wherever
 * they appear, whatever the syntax around them. Shapes follow gitleaks' rule set
 * (config/gitleaks.toml) and the vendors' published formats; each `prefix` is matched exactly
 * (case-sensitively) and `body` bounds every repetition, so a scan stays linear.
 */
export interface VendorToken {
  rule: string;
  /** A regular-expression source for the fixed start of the token. */
  prefix: string;
  /** A regular-expression source for the rest; the placeholder and variety checks read this part. */
  body: string;
}

/** Not a token character: tokens end at a quote, space, `;`, `&`, `<` or the end of the text. */
const end = String.raw`(?![A-Za-z0-9_\-])`;

export const vendorTokens = [
  { rule: 'aws-access-key-id', prefix: String.raw`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)`, body: String.raw`[A-Z0-9]{16}\b` },
  {
    rule: 'azure-storage-key',
    prefix: String.raw`(?:AccountKey|SharedAccessKey)=`,
    body: String.raw`[A-Za-z0-9+/]{43,88}={0,2}(?=[;"'\s<&]|$)`,
  },
  {
    rule: 'gitlab-token',
    prefix: String.raw`\bgl(?:pat|rt|dt|ptt|soat|ft|imt|agent|oas|cbt|ffct)-`,
    body: String.raw`[0-9A-Za-z_\-]{20,300}` + end,
  },
  { rule: 'gitlab-token', prefix: String.raw`\bGR1348941`, body: String.raw`[\w\-]{20}` + end },
  { rule: 'atlassian-token', prefix: String.raw`\bAT(?:ATT3|BB|CTT3)`, body: String.raw`[A-Za-z0-9_\-=.]{28,300}` + end },
  { rule: 'slack-token', prefix: String.raw`\bxapp-\d-`, body: String.raw`[A-Z0-9]{6,20}-\d{6,20}-[a-z0-9]{20,100}` + end },
  { rule: 'discord-webhook', prefix: String.raw`discord(?:app)?\.com/api/webhooks/`, body: String.raw`\d{15,20}/[\w\-]{50,100}` },
  {
    // The ids are GUIDs, but gitleaks and older connectors accept any lower-case letter; the path is specific enough.
    rule: 'teams-webhook',
    prefix: String.raw`\.webhook\.office\.com/webhookb2/`,
    body: String.raw`[0-9a-z\-]{36}@[0-9a-z\-]{36}/IncomingWebhook/[0-9a-z]{32}/[0-9a-z\-]{36}`,
  },
  { rule: 'stripe-key', prefix: String.raw`\b[rs]k_prod_`, body: String.raw`[0-9A-Za-z]{24,247}\b` },
  { rule: 'openai-key', prefix: String.raw`\bsk-(?:proj|svcacct|admin)-`, body: String.raw`[A-Za-z0-9_\-]{40,300}` + end },
  { rule: 'openai-key', prefix: String.raw`\bsk-`, body: String.raw`[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}` + end },
  { rule: 'anthropic-key', prefix: String.raw`\bsk-ant-(?:api|admin|sid)\d\d-`, body: String.raw`[A-Za-z0-9_\-]{80,120}` + end },
  { rule: 'huggingface-token', prefix: String.raw`\b(?:hf_|api_org_)`, body: String.raw`[A-Za-z]{34}\b` },
  { rule: 'pypi-token', prefix: String.raw`\bpypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)`, body: String.raw`[\w\-]{50,1000}` },
  { rule: 'rubygems-key', prefix: String.raw`\brubygems_`, body: String.raw`[a-f0-9]{48}\b` },
  { rule: 'twilio-key', prefix: String.raw`\bSK`, body: String.raw`[0-9a-f]{32}\b` },
  { rule: 'sendgrid-key', prefix: String.raw`\bSG\.`, body: String.raw`[\w\-]{22}\.[\w\-]{43}` + end },
  { rule: 'mailgun-key', prefix: String.raw`\bkey-`, body: String.raw`[0-9a-f]{32}\b` },
  { rule: 'shopify-token', prefix: String.raw`\bshp(?:at|ca|pa|ss)_`, body: String.raw`[a-fA-F0-9]{32}\b` },
  { rule: 'heroku-key', prefix: String.raw`\bHRKU-AA`, body: String.raw`[0-9a-zA-Z_\-]{58}` + end },
  { rule: 'digitalocean-token', prefix: String.raw`\bdo[opr]_v1_`, body: String.raw`[a-f0-9]{64}\b` },
  { rule: 'newrelic-key', prefix: String.raw`\bNR(?:AK|II|JS|AA|RA)-`, body: String.raw`[A-Za-z0-9_\-]{19,40}` + end },
  { rule: 'cloudflare-origin-ca-key', prefix: String.raw`\bv1\.0-`, body: String.raw`[a-f0-9]{24}-[a-f0-9]{146}\b` },
  { rule: 'vault-token', prefix: String.raw`\bhv[sbr]\.`, body: String.raw`[\w\-]{90,400}` + end },
  { rule: 'doppler-token', prefix: String.raw`\bdp\.(?:pt|st|ct|sa|scim|audit)\.`, body: String.raw`[A-Za-z0-9_.\-]{40,120}` + end },
  { rule: 'age-secret-key', prefix: String.raw`AGE-SECRET-KEY-1`, body: '[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}' },
  { rule: 'databricks-token', prefix: String.raw`\bdapi`, body: String.raw`[a-f0-9]{32}(?:-\d)?\b` },
  { rule: 'linear-key', prefix: String.raw`\blin_(?:api|oauth)_`, body: String.raw`[A-Za-z0-9]{40}\b` },
  { rule: 'postman-key', prefix: String.raw`\bPMAK-`, body: String.raw`[a-f0-9]{24}-[a-f0-9]{34}\b` },
  { rule: 'grafana-token', prefix: String.raw`\bgl(?:sa|c)_`, body: String.raw`[A-Za-z0-9+/_]{32,400}={0,3}` },
  { rule: 'grafana-token', prefix: String.raw`\beyJrIjoi`, body: String.raw`[A-Za-z0-9]{70,400}={0,3}` },
  { rule: 'sentry-token', prefix: String.raw`\bsntry[us]_`, body: String.raw`[A-Za-z0-9+/=_]{40,400}` },
  { rule: 'planetscale-token', prefix: String.raw`\bpscale_(?:tkn|oauth|pw)_`, body: String.raw`[\w=.\-]{32,64}` + end },
  { rule: 'pulumi-token', prefix: String.raw`\bpul-`, body: String.raw`[a-f0-9]{40}\b` },
  { rule: 'dynatrace-token', prefix: String.raw`\bdt0c01\.`, body: String.raw`[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b` },
  { rule: 'square-token', prefix: String.raw`\b(?:EAAA|sq0(?:atp|csp|idp)-)`, body: String.raw`[\w\-]{22,100}` + end },
  { rule: 'alibaba-access-key', prefix: String.raw`\bLTAI`, body: String.raw`[A-Za-z0-9]{20}\b` },
  { rule: 'brevo-key', prefix: String.raw`\bxkeysib-`, body: String.raw`[a-f0-9]{64}-[A-Za-z0-9]{16}\b` },
  { rule: 'notion-token', prefix: String.raw`\bntn_`, body: String.raw`\d{11}[A-Za-z0-9]{35}\b` },
  { rule: 'perplexity-key', prefix: String.raw`\bpplx-`, body: String.raw`[A-Za-z0-9]{48}\b` },
  { rule: 'groq-key', prefix: String.raw`\bgsk_`, body: String.raw`[A-Za-z0-9]{52}\b` },
  { rule: 'artifactory-key', prefix: String.raw`\bAKCp`, body: String.raw`[A-Za-z0-9]{69}\b` },
  { rule: 'flyio-token', prefix: String.raw`\b(?:fo1_|fm[12][ar]?_)`, body: String.raw`[A-Za-z0-9+/_\-]{43,400}={0,3}` },
  { rule: 'onepassword-token', prefix: String.raw`\bops_eyJ`, body: String.raw`[A-Za-z0-9+/]{250,2000}={0,3}` },
  // Airtable personal access tokens: `pat`, a 14-character id, a dot, a 64-digit hex secret.
  { rule: 'airtable-token', prefix: String.raw`\bpat`, body: String.raw`[A-Za-z0-9]{14}\.[a-f0-9]{64}\b` },
  // Amazon Bedrock API keys: long-term keys are base64 after `ABSK`; short-term ones encode the service host.
  { rule: 'aws-bedrock-key', prefix: String.raw`\bABSK`, body: String.raw`[A-Za-z0-9+/]{109,269}={0,2}(?![A-Za-z0-9+/=])` },
  {
    rule: 'aws-bedrock-key',
    prefix: String.raw`\bbedrock-api-key-`,
    body: String.raw`YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%]{0,2000}`,
  },
  { rule: 'duffel-token', prefix: String.raw`\bduffel_(?:test|live)_`, body: String.raw`[A-Za-z0-9_\-=]{43}` + end },
  // Flutterwave secret keys (`FLWSECK-…-X`, `FLWSECK_TEST-…-X`) and the 12-digit encryption key.
  { rule: 'flutterwave-key', prefix: String.raw`\bFLWSECK(?:_TEST)?-`, body: String.raw`[a-hA-H0-9]{12}(?:[a-hA-H0-9]{20}-X)?` + end },
  // A GitLab session cookie value carries the signed-in session.
  { rule: 'gitlab-session-cookie', prefix: String.raw`\b_gitlab_session=`, body: String.raw`[0-9a-z]{32}\b` },
  // Mapbox tokens: `pk.` (public), `sk.` (secret) or `tk.` (temporary), a base64url payload, a dot, a signature.
  { rule: 'mapbox-token', prefix: String.raw`\b[pst]k\.`, body: String.raw`[A-Za-z0-9_\-]{60,400}\.[A-Za-z0-9_\-]{20,30}` + end },
  { rule: 'settlemint-token', prefix: String.raw`\bsm_(?:aat|pat|sat)_`, body: String.raw`[A-Za-z0-9]{16}` + end },
  // Legacy Vault service tokens: `s.` and 24 base62 characters, with a digit and a letter, unlike a property name.
  {
    rule: 'vault-token',
    prefix: String.raw`\bs\.`,
    body: String.raw`(?=[A-Za-z]{0,23}[0-9])(?=[0-9]{0,23}[A-Za-z])[A-Za-z0-9]{24}\b`,
  },
  { rule: 'typeform-token', prefix: String.raw`\btfp_`, body: String.raw`[A-Za-z0-9_\-.=]{59}` + end },
  // Harness personal and service-account tokens: kind, account id, token id, secret.
  { rule: 'harness-token', prefix: String.raw`\b[ps]at\.`, body: String.raw`[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}` + end },
  { rule: 'shippo-token', prefix: String.raw`\bshippo_(?:live|test)_`, body: String.raw`[a-fA-F0-9]{40}` + end },
  // Lob keys: `live_`/`test_` and 35 hex digits, an odd length no hash has.
  { rule: 'lob-key', prefix: String.raw`\b(?:live|test)_`, body: String.raw`[a-f0-9]{35}` + end },
  // A JWT encoded once more as base64 (Kubernetes secrets, CI variables): `ZXlK` is base64 of `eyJ`.
  { rule: 'jwt', prefix: String.raw`\bZXlK`, body: String.raw`[A-Za-z0-9+/_\-]{60,8192}={0,2}` },
] as const satisfies readonly VendorToken[];

/**
 * Formats identified by a marker inside the token rather than at its start (`…8Q~…`, `…:AA…`):
 * the scan finds the marker with `indexOf`, and `pattern` (sticky) is tried from each `back`
 * offset before it.
 */
export interface AnchoredToken {
  rule: string;
  anchor: string;
  /** How far before the marker the token may start, nearest first. */
  back: readonly number[];
  pattern: RegExp;
}

export const anchoredTokens = [
  // Azure AD client secrets: three characters, a digit, `Q~`, then 31 to 34 more.
  { rule: 'azure-ad-client-secret', anchor: 'Q~', back: [4], pattern: /(?<![\w~.])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])/y },
  // Telegram bot tokens: the bot's numeric id, `:AA`, then 33 characters.
  { rule: 'telegram-bot-token', anchor: ':AA', back: [8, 9, 10], pattern: /(?<![\w])\d{8,10}:AA[\w-]{33}(?![\w-])/y },
] as const satisfies readonly AnchoredToken[];
