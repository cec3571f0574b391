import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { classifyDirectory, classifyPath } from '../../src/core/exclusion/pathRules';
import { countMalformedUtf8, sniffContent } from '../../src/core/exclusion/contentRules';
import { exclusionReasonDescriptions, exclusionReasons, isExclusionReason, isSecretReason } from '../../src/core/exclusion/reasons';
import { findSecret, isSecretLikeValue, shannonEntropy } from '../../src/core/exclusion/secrets';
import { ALNUM, BASE64, DIGITS, Draw, HEX, LOWER, seededRandom, UPPER } from './secretCorpus';

// Every secret-shaped sample below is generated here, at run time, from a seeded generator and
// split prefixes, so the repository never holds a string that a secret scanner (or GitHub push
// protection) would take for a real credential, and the samples are the same on every run.

const random = seededRandom(20240611);
const draw = new Draw(random);
const randomFrom = (alphabet: string, length: number): string => draw.from(alphabet, length);

/** A random value that certainly mixes letters and digits, like a real API secret. */
function secretValue(length: number): string {
  return randomFrom(UPPER, 2) + randomFrom(DIGITS, 2) + randomFrom(LOWER, 2) + randomFrom(ALNUM, length - 6);
}

function randomBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index++) bytes[index] = Math.floor(random() * 256);
  return bytes;
}

function base64Url(value: Buffer | string): string {
  return Buffer.from(value).toString('base64url');
}

const samples = {
  awsAccessKeyId: () => 'AK' + 'IA' + randomFrom(UPPER + DIGITS, 16),
  awsTemporaryKeyId: () => 'AS' + 'IA' + randomFrom(UPPER + DIGITS, 16),
  awsSecretAccessKey: () => randomFrom(BASE64, 18) + '/' + randomFrom(DIGITS, 2) + randomFrom(BASE64, 19),
  googleApiKey: () => 'AI' + 'za' + randomFrom(ALNUM + '-_', 35),
  githubClassic: (kind: string) => 'gh' + kind + '_' + randomFrom(ALNUM, 36),
  githubFineGrained: () => 'github' + '_pat_' + randomFrom(ALNUM, 22) + '_' + randomFrom(ALNUM, 59),
  slackBot: () => 'xo' + 'xb-' + randomFrom(DIGITS, 11) + '-' + randomFrom(DIGITS, 13) + '-' + randomFrom(ALNUM, 24),
  slackUser: () =>
    'xo' + 'xp-' + randomFrom(DIGITS, 11) + '-' + randomFrom(DIGITS, 11) + '-' + randomFrom(DIGITS, 13) + '-' + randomFrom(HEX, 32),
  slackWebhook: () =>
    'https://hooks.' +
    'slack.com/services/T' +
    randomFrom(UPPER + DIGITS, 10) +
    '/B' +
    randomFrom(UPPER + DIGITS, 10) +
    '/' +
    randomFrom(ALNUM, 24),
  stripe: (prefix: string) => prefix + '_' + randomFrom(ALNUM, 24),
  npmToken: () => 'np' + 'm_' + randomFrom(ALNUM, 36),
  jwt: () =>
    base64Url(JSON.stringify({ alg: 'HS256', typ: 'JWT' })) +
    '.' +
    base64Url(JSON.stringify({ sub: randomFrom(DIGITS, 10), iat: 1700000000 })) +
    '.' +
    base64Url(randomBytes(32)),
  keyBody: (lines: number) => Array.from({ length: lines }, () => randomBytes(48).toString('base64')),
  pem: (label: string) => ['-----BEGIN ' + label + '-----', ...samples.keyBody(6), '-----END ' + label + '-----'].join('\n'),
};

const pk = 'PRIVATE' + ' KEY';

describe('reasons', () => {
  test('every reason code has a description and is recognised', () => {
    assert.ok(exclusionReasons.length >= 25);
    for (const reason of exclusionReasons) {
      assert.ok(exclusionReasonDescriptions[reason].length > 10, reason);
      assert.ok(isExclusionReason(reason));
    }
    assert.equal(isExclusionReason('nonsense'), false);
    assert.equal(isSecretReason('env-file'), true);
    assert.equal(isSecretReason('lockfile'), false);
  });
});

describe('classifyPath', () => {
  const cases: Array<[string, string | undefined]> = [
    // vcs
    ['.git/config', 'vcs'],
    ['sub/.hg/store/data', 'vcs'],
    ['.svn/entries', 'vcs'],
    ['modules/lib/.git', 'vcs'],
    ['CVS/Entries', 'vcs'],
    // dependency
    ['node_modules/left-pad/index.js', 'dependency'],
    ['packages/app/node_modules/x/y.js', 'dependency'],
    ['vendor/github.com/pkg/errors/errors.go', 'dependency'],
    ['third_party/zlib/zlib.h', 'dependency'],
    ['ios/Pods/Alamofire/Source/AF.swift', 'dependency'],
    ['.yarn/releases/yarn-4.1.0.cjs', 'dependency'],
    ['web/bower_components/jquery/jquery.js', 'dependency'],
    ['src/vendor/vendorService.ts', undefined],
    ['k8s/pods/web.yaml', undefined],
    // build output
    ['dist/index.js', 'build-output'],
    ['out/extension.js', 'build-output'],
    ['build/lib/main.js', 'build-output'],
    ['target/debug/app.d', 'build-output'],
    ['crates/core/target/release/core.d', 'build-output'],
    ['android/app/build/generated/R.java', 'build-output'],
    ['App/bin/Debug/net8.0/App.deps.json', 'build-output'],
    ['App/obj/project.assets.json', 'build-output'],
    ['web/.next/server/page.js', 'build-output'],
    ['cmake-build-debug/CMakeCache.txt', 'build-output'],
    ['mypkg.egg-info/PKG-INFO', 'build-output'],
    ['tsconfig.tsbuildinfo', 'build-output'],
    ['src/main/java/org/acme/build/Builder.java', undefined],
    ['pkg/build/build.go', undefined],
    ['bin/pk.js', undefined],
    ['src/bin/main.rs', undefined],
    ['BUILD', undefined],
    ['tools/BUILD.bazel', undefined],
    ['build', undefined],
    ['test/fixtures/out/expected.txt', undefined],
    ['docs/build-guide.md', undefined],
    // cache
    ['__pycache__/mod.cpython-311.pyc', 'cache'],
    ['.pytest_cache/v/cache/nodeids', 'cache'],
    ['coverage/lcov.info', 'cache'],
    ['.DS_Store', 'cache'],
    ['web/.eslintcache', 'cache'],
    ['.gradle/8.5/checksums/md5.bin', 'cache'],
    ['src/coverage/policyCoverage.ts', undefined],
    // virtual environments
    ['.venv/lib/python3.11/site-packages/six.py', 'virtualenv'],
    ['venv/bin/activate', 'virtualenv'],
    ['usr/lib/site-packages/x.py', 'virtualenv'],
    ['Lib/venv/__init__.py', undefined],
    // lockfiles
    ['package-lock.json', 'lockfile'],
    ['web/yarn.lock', 'lockfile'],
    ['pnpm-lock.yaml', 'lockfile'],
    ['Cargo.lock', 'lockfile'],
    ['poetry.lock', 'lockfile'],
    ['Gemfile.lock', 'lockfile'],
    ['composer.lock', 'lockfile'],
    ['go.sum', 'lockfile'],
    ['Pipfile.lock', 'lockfile'],
    ['bun.lockb', 'lockfile'],
    ['flake.lock', 'lockfile'],
    // source maps and minified assets
    ['public/app.js.map', 'source-map'],
    ['styles/site.css.map', 'source-map'],
    ['lib/index.d.ts.map', 'source-map'],
    ['nginx/mime.map', undefined],
    ['public/jquery.min.js', 'minified'],
    ['css/site.min.css', 'minified'],
    ['lib/underscore-min.js', 'minified'],
    ['static/app.bundle.js', 'minified'],
    // binary formats
    ['assets/logo.png', 'binary-extension'],
    ['assets/Photo.JPG', 'binary-extension'],
    ['fonts/inter.woff2', 'binary-extension'],
    ['release.zip', 'binary-extension'],
    ['media/intro.mp4', 'binary-extension'],
    ['tools/setup.exe', 'binary-extension'],
    ['lib/libfoo.so', 'binary-extension'],
    ['docs/spec.pdf', 'binary-extension'],
    ['data/app.sqlite', 'binary-extension'],
    ['pkg/module.wasm', 'binary-extension'],
    ['classes/Main.class', 'binary-extension'],
    ['libs/guava.jar', 'binary-extension'],
    ['scripts/helper.pyc', 'binary-extension'],
    ['docs/report.docx', 'binary-extension'],
    ['__snapshots__/view.test.ts.snap', undefined],
    // private keys by name
    ['certs/server.pem', 'private-key'],
    ['server.key', 'private-key'],
    ['signing/keystore.p12', 'private-key'],
    ['cert.pfx', 'private-key'],
    ['android/release.jks', 'private-key'],
    ['debug.keystore', 'private-key'],
    ['putty.ppk', 'private-key'],
    ['.ssh/id_rsa', 'private-key'],
    ['deploy/id_ed25519', 'private-key'],
    ['deploy/id_ecdsa', 'private-key'],
    ['.ssh/id_rsa.pub', undefined],
    // environment files
    ['.env', 'env-file'],
    ['.env.local', 'env-file'],
    ['config/.env.production', 'env-file'],
    ['.env.example', 'env-file'],
    ['docker/web.env', 'env-file'],
    ['.envrc', 'env-file'],
    ['src/env.ts', undefined],
    ['src/environment.ts', undefined],
    // credential files
    ['.netrc', 'credential-file'],
    ['.pgpass', 'credential-file'],
    ['web/.htpasswd', 'credential-file'],
    ['.git-credentials', 'credential-file'],
    ['.aws/credentials', 'credential-file'],
    ['credentials', 'credential-file'],
    ['config/credentials.json', 'credential-file'],
    ['client_secret_1234-abc.apps.googleusercontent.com.json', 'credential-file'],
    ['keys/service-account-prod.json', 'credential-file'],
    ['infra/terraform.tfstate', 'credential-file'],
    ['infra/terraform.tfstate.backup', 'credential-file'],
    ['.docker/config.json', 'credential-file'],
    ['src/auth/credentials.ts', undefined],
    ['auth/secrets.py', undefined],
    ['src/credentialsStore.ts', undefined],
    ['.npmrc', undefined],
    ['.pypirc', undefined],
    ['.yarnrc.yml', undefined],
    // outside the root
    ['../elsewhere/file.ts', 'outside-root'],
    ['/etc/passwd', 'outside-root'],
    ['a/../../b.ts', 'outside-root'],
    // ordinary files
    ['src/index.ts', undefined],
    ['./src/index.ts', undefined],
    ['README.md', undefined],
    ['package.json', undefined],
    ['Makefile', undefined],
  ];
  for (const [relativePath, expected] of cases) {
    test(`${relativePath} → ${expected ?? 'kept'}`, () => {
      assert.equal(classifyPath(relativePath), expected);
    });
  }

  test('the outermost excluded directory decides the reason', () => {
    assert.equal(classifyPath('node_modules/pkg/.env'), 'dependency');
    assert.equal(classifyPath('dist/app.js.map'), 'build-output');
    assert.equal(classifyPath('vendor/pkg/.git/config'), 'dependency');
  });

  test('directories: unambiguous names match as a last segment, build-like names only as directories', () => {
    assert.equal(classifyPath('node_modules'), 'dependency');
    assert.equal(classifyPath('.git'), 'vcs');
    assert.equal(classifyPath('build'), undefined);
    assert.equal(classifyPath('build/'), 'build-output');
    assert.equal(classifyDirectory('build'), 'build-output');
    assert.equal(classifyDirectory('target'), 'build-output');
    assert.equal(classifyDirectory('packages/web/dist'), 'build-output');
    assert.equal(classifyDirectory('src/build'), undefined);
    assert.equal(classifyDirectory('bin'), undefined);
    assert.equal(classifyDirectory('src'), undefined);
    assert.equal(classifyDirectory('../up'), 'outside-root');
  });
});

describe('sniffContent: encoding, binary and empty', () => {
  const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

  test('ordinary source is accepted with its text', () => {
    const result = sniffContent(utf8('export const answer = 42;\n'), 'src/a.ts');
    assert.deepEqual(result, { ok: true, text: 'export const answer = 42;\n', malformedRatio: 0 });
  });

  test('a UTF-8 byte-order mark is stripped', () => {
    const result = sniffContent(new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('hello\n')]), 'a.txt');
    assert.ok(result.ok);
    assert.equal(result.text, 'hello\n');
  });

  test('empty, BOM-only and whitespace-only files are empty', () => {
    for (const bytes of [new Uint8Array(0), new Uint8Array([0xef, 0xbb, 0xbf]), utf8('  \n\t\r\n  \n')]) {
      const result = sniffContent(bytes, 'a.txt');
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.reason, 'empty');
    }
  });

  test('a NUL byte makes content binary, early or late', () => {
    const early = sniffContent(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x41]), 'data.txt');
    assert.deepEqual(early.ok ? undefined : [early.reason, /offset 4/.test(early.detail)], ['binary-content', true]);
    const late = Buffer.concat([Buffer.from('x'.repeat(100_000)), Buffer.from([0]), Buffer.from('y\n')]);
    const lateResult = sniffContent(new Uint8Array(late), 'data.txt');
    assert.equal(!lateResult.ok && lateResult.reason, 'binary-content');
  });

  test('UTF-16 text (with its NULs) is reported as binary content', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello world\n', 'utf16le')]);
    const result = sniffContent(new Uint8Array(utf16), 'notes.txt');
    assert.equal(!result.ok && result.reason, 'binary-content');
  });

  test('control-heavy content is binary; a few controls and ANSI escapes are not', () => {
    const heavy = Buffer.alloc(2000, 0x61);
    for (let index = 0; index < heavy.length; index += 5) heavy[index] = 0x01; // 20% controls
    const heavyResult = sniffContent(new Uint8Array(heavy), 'blob.txt');
    assert.equal(!heavyResult.ok && heavyResult.reason, 'binary-content');
    assert.match(heavyResult.ok ? '' : heavyResult.detail, /control/);

    const light = Buffer.alloc(2000, 0x61);
    for (let index = 0; index < light.length; index += 40) light[index] = 0x0c; // form feeds are whitespace
    for (let index = 7; index < light.length; index += 50) light[index] = 0x07; // 2% bells
    assert.equal(sniffContent(new Uint8Array(light), 'a.txt').ok, true);

    const ansiLog = Array.from({ length: 200 }, (_, line) => `\x1b[32mok\x1b[0m step ${line}`).join('\n');
    assert.equal(sniffContent(utf8(ansiLog), 'build.log').ok, true);
  });

  test('one stray byte is tolerated; heavily malformed UTF-8 is excluded', () => {
    const stray = Buffer.concat([Buffer.from('// (c) 2024 Caf'), Buffer.from([0xe9]), Buffer.from(' Ltd\nexport const x = 1;\n')]);
    const strayResult = sniffContent(new Uint8Array(stray), 'src/x.ts');
    assert.ok(strayResult.ok);
    assert.ok(strayResult.malformedRatio > 0 && strayResult.malformedRatio < 0.05);
    assert.ok(strayResult.text.includes('\uFFFD'));

    const latin1 = Buffer.from('Le garçon a mangé une crème brûlée à côté de la forêt.\n'.repeat(20), 'latin1');
    const latin1Result = sniffContent(new Uint8Array(latin1), 'docs/fr.txt');
    assert.equal(!latin1Result.ok && latin1Result.reason, 'malformed-utf8');

    const garbage = sniffContent(new Uint8Array([0xff, 0xfe, 0xfd, 0x0a]), 'x.txt');
    assert.equal(!garbage.ok && garbage.reason, 'malformed-utf8');
  });

  test('a legitimate U+FFFD is not counted as malformed', () => {
    const result = sniffContent(utf8('replacement: \uFFFD\uFFFD\uFFFD\uFFFD\n'), 'a.txt');
    assert.ok(result.ok);
    assert.equal(result.malformedRatio, 0);
  });

  test('the malformed count matches the replacements TextDecoder makes', () => {
    const decoder = new TextDecoder('utf-8');
    const inputs = [
      [0xc3],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x98],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0x80, 0x80, 0x41],
      [0xe2, 0x41, 0x82, 0xac],
      [0xf0, 0x9f, 0x98, 0x80, 0xff, 0x41],
    ];
    for (const input of inputs) {
      const bytes = new Uint8Array(input);
      const replacements = [...decoder.decode(bytes)].filter((character) => character === '\uFFFD').length;
      assert.equal(countMalformedUtf8(bytes), replacements, input.map((byte) => byte.toString(16)).join(' '));
    }
  });

  test('minified text is excluded by line shape; ordinary code is not', () => {
    const minified = 'var a=1,b=2;function c(d){return d+a+b}'.repeat(150);
    const result = sniffContent(utf8(minified), 'public/vendor.js');
    assert.equal(!result.ok && result.reason, 'minified');
    const code = Array.from({ length: 200 }, (_, line) => `  const value${line} = compute(${line});`).join('\n');
    assert.equal(sniffContent(utf8(code), 'src/a.ts').ok, true);
    assert.equal(sniffContent(utf8('x'.repeat(1500)), 'short.txt').ok, true);
  });
});

describe('sniffContent: secrets', () => {
  const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

  test('a token in source is secret-content, and the detail never quotes it', () => {
    const token = samples.githubClassic('p');
    const result = sniffContent(utf8(`// setup\nconst client = new Client({\n  auth: '${token}',\n});\n`), 'src/client.ts');
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.reason, 'secret-content');
    assert.match(result.detail, /github-token on line 3/);
    assert.ok(!result.detail.includes(token.slice(4)));
  });

  test('a private-key block is private-key', () => {
    const result = sniffContent(utf8(`# deploy key\n${samples.pem('RSA ' + pk)}\n`), 'deploy/key.txt');
    assert.equal(!result.ok && result.reason, 'private-key');
  });

  test('a registry config with a literal token or password is credential-file; with a variable it is kept', () => {
    const npmrc = `registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${randomFrom(HEX, 8)}-${randomFrom(HEX, 4)}-${randomFrom(HEX, 4)}\n`;
    assert.equal(((r) => !r.ok && r.reason)(sniffContent(utf8(npmrc), '.npmrc')), 'credential-file');
    const withVariable = 'registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\nalways-auth=true\n';
    assert.equal(sniffContent(utf8(withVariable), '.npmrc').ok, true);
    const pypirc = `[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = someone\npassword = ${randomFrom(LOWER, 10)}\n`;
    assert.equal(((r) => !r.ok && r.reason)(sniffContent(utf8(pypirc), 'config/.pypirc')), 'credential-file');
    const yarnrc = `npmRegistryServer: "https://npm.example.org"\nnpmAuthToken: "${randomFrom(ALNUM, 30)}"\n`;
    assert.equal(((r) => !r.ok && r.reason)(sniffContent(utf8(yarnrc), '.yarnrc.yml')), 'credential-file');
    assert.equal(
      sniffContent(utf8('npmRegistryServer: "https://npm.example.org"\nnpmAuthToken: "${NPM_TOKEN}"\n'), '.yarnrc.yml').ok,
      true,
    );
  });
});

describe('findSecret: rules that must fire', () => {
  const fires = (name: string, text: string, rule: string, relativePath = 'src/sample.ts', line?: number) => {
    test(name, () => {
      const finding = findSecret(text, relativePath);
      assert.ok(finding, `expected ${rule} in ${JSON.stringify(text.slice(0, 200))}`);
      assert.equal(finding.rule, rule);
      if (line !== undefined) assert.equal(finding.line, line);
    });
  };

  fires('PEM RSA private key', `const fixture = 1;\n\n${samples.pem('RSA ' + pk)}\n`, 'private-key-block', 'src/sample.ts', 3);
  fires('PKCS#8 private key', samples.pem(pk), 'private-key-block');
  fires('EC private key', samples.pem('EC ' + pk), 'private-key-block');
  fires('OpenSSH private key', samples.pem('OPENSSH ' + pk), 'private-key-block');
  fires('DSA private key', samples.pem('DSA ' + pk), 'private-key-block');
  fires(
    'encrypted PEM with headers',
    [
      '-----BEGIN RSA ' + pk + '-----',
      'Proc-Type: 4,ENCRYPTED',
      'DEK-Info: AES-128-CBC,' + randomFrom(HEX, 32).toUpperCase(),
      '',
      ...samples.keyBody(4),
      '-----END RSA ' + pk + '-----',
    ].join('\n'),
    'private-key-block',
  );
  fires(
    'PGP private key block',
    ['-----BEGIN PGP ' + pk + ' BLOCK-----', 'Version: GnuPG v2', '', ...samples.keyBody(4), '-----END PGP ' + pk + ' BLOCK-----'].join(
      '\n',
    ),
    'private-key-block',
  );
  fires(
    'private key embedded in JSON with \\n escapes',
    `{\n  "type": "service_account",\n  "private_key": "-----BEGIN ${pk}-----\\n${samples.keyBody(3).join('\\n')}\\n-----END ${pk}-----\\n"\n}\n`,
    'private-key-block',
    'config/sa.json',
    3,
  );
  fires(
    'private key concatenated in a string literal',
    `const key =\n  '-----BEGIN RSA ${pk}-----\\n' +\n  '${samples.keyBody(1)[0]}\\n' +\n  '-----END RSA ${pk}-----';\n`,
    'private-key-block',
    'src/sample.js',
    2,
  );
  fires(
    'PuTTY private key',
    `PuTTY-User-Key-File-${2}: ssh-rsa\nEncryption: none\nComment: deploy\nPublic-Lines: 1\n${samples.keyBody(1)[0]}\n`,
    'putty-private-key',
    'keys/deploy.txt',
  );

  fires('AWS access key id', `aws_access_key_id = ${samples.awsAccessKeyId()}\n`, 'aws-access-key-id', 'config/aws.ini');
  fires('AWS temporary access key id in code', `const id = "${samples.awsTemporaryKeyId()}";\n`, 'aws-access-key-id');
  fires(
    'AWS secret access key (ini)',
    `[default]\naws_secret_access_key = ${samples.awsSecretAccessKey()}\n`,
    'aws-secret-access-key',
    'config/aws.ini',
    2,
  );
  fires(
    'AWS secret access key (env style)',
    `AWS_SECRET_ACCESS_KEY=${samples.awsSecretAccessKey()}\n`,
    'aws-secret-access-key',
    'deploy/run.sh',
  );
  fires(
    'AWS secret access key (SDK option)',
    `new S3Client({ credentials: { accessKeyId: id, secretAccessKey: "${samples.awsSecretAccessKey()}" } });\n`,
    'aws-secret-access-key',
  );
  fires('Google API key', `const maps = loadMaps({ key: "${samples.googleApiKey()}" });\n`, 'google-api-key');
  for (const kind of ['p', 'o', 'u', 's', 'r'])
    fires(
      `GitHub token gh${kind}_`,
      `git clone https://x:${samples.githubClassic(kind)}@github.com/org/repo\n`,
      'github-token',
      'scripts/clone.sh',
    );
  fires('GitHub fine-grained token', `GITHUB_TOKEN: ${samples.githubFineGrained()}\n`, 'github-token', '.github/workflows/ci.yml');
  fires('GitHub fine-grained token in prose', `The token ${samples.githubFineGrained()} was revoked.\n`, 'github-token', 'NOTES.md');
  fires('Slack bot token', `slack = WebClient(token="${samples.slackBot()}")\n`, 'slack-token', 'bot.py');
  fires('Slack user token', `SLACK=${samples.slackUser()}\n`, 'slack-token', 'notes.txt');
  fires('Slack webhook URL', `curl -X POST ${samples.slackWebhook()} -d @msg.json\n`, 'slack-webhook', 'notify.sh');
  fires('Stripe live secret key', `Stripe.api_key = "${samples.stripe('sk' + '_live')}"\n`, 'stripe-key', 'pay.rb');
  fires('Stripe restricted key', `const stripe = new Stripe('${samples.stripe('rk' + '_live')}');\n`, 'stripe-key');
  fires('Stripe test secret key', `STRIPE=${samples.stripe('sk' + '_test')}\n`, 'stripe-key', 'README.md');
  fires('npm token', `echo "${samples.npmToken()}" | npm login\n`, 'npm-token', 'publish.sh');
  fires('JWT bearer value', `curl -H "Authorization: Bearer ${samples.jwt()}" https://api.internal\n`, 'jwt', 'docs/api.md');
  fires('npmrc _authToken', `//npm.pkg.github.com/:_authToken=${randomFrom(ALNUM, 20)}\n`, 'npmrc-auth-token', '.npmrc');
  fires('pypirc password', `[pypi]\nusername = __token__\npassword = ${randomFrom(LOWER, 12)}\n`, 'registry-password', '.pypirc', 3);
  fires(
    'credentials in a URL',
    `DATABASE_URL=postgres://app:${secretValue(20)}@db.internal.acme.io:5432/app\n`,
    'url-credentials',
    'docs/deploy.md',
  );

  const value = () => secretValue(24);
  fires('JS const password', `const password = "${value()}";\n`, 'secret-assignment', 'src/db.js');
  fires(
    'TS typed field with literal',
    `class Api {\n  private readonly apiKey: string = '${value()}';\n}\n`,
    'secret-assignment',
    'src/api.ts',
    2,
  );
  fires(
    'object property clientSecret',
    `const oauth = {\n  clientId: 'web',\n  clientSecret: '${value()}',\n};\n`,
    'secret-assignment',
    'src/oauth.ts',
    3,
  );
  fires('Python keyword argument', `conn = connect(host="db", password="${value()}")\n`, 'secret-assignment', 'app/db.py');
  fires('Python constant', `SECRET_KEY = '${value()}'\n`, 'secret-assignment', 'settings.py');
  fires('Go short assignment', `func main() {\n\ttoken := "${value()}"\n}\n`, 'secret-assignment', 'main.go', 2);
  fires('Go typed var', `var apiToken string = "${value()}"\n`, 'secret-assignment', 'cfg.go');
  fires('Ruby hash rocket', `config = { :access_token => "${value()}" }\n`, 'secret-assignment', 'config.rb');
  fires('PHP array', `return ['db_password' => '${value()}'];\n`, 'secret-assignment', 'config.php');
  fires('JSON property', `{\n  "name": "svc",\n  "api_key": "${value()}"\n}\n`, 'secret-assignment', 'config/app.json', 3);
  fires('YAML bare value', `database:\n  user: app\n  password: ${value()}\n`, 'secret-assignment', 'config/db.yaml', 3);
  fires('INI bare value', `[smtp]\nhost = mail\nsmtp_pass = ${value()}\n`, 'secret-assignment', 'settings.ini', 3);
  fires('properties file', `spring.datasource.password=${value()}\n`, 'secret-assignment', 'application.properties');
  fires('shell export', `#!/bin/sh\nexport API_TOKEN=${value()}\n`, 'secret-assignment', 'deploy.sh', 2);
  fires('Dockerfile ENV', `FROM node:20\nENV AUTH_TOKEN=${value()}\n`, 'secret-assignment', 'Dockerfile', 2);
  fires('XML element', `<server>\n  <id>repo</id>\n  <password>${value()}</password>\n</server>\n`, 'secret-assignment', 'settings.xml', 3);
  fires('Rails SECRET_KEY_BASE', `SECRET_KEY_BASE=${randomFrom(HEX, 128)}\n`, 'secret-assignment', 'config/app.conf');
  fires('hex secret assigned to a secret name', `webhook_secret = "${randomFrom(HEX, 40)}"\n`, 'secret-assignment', 'hooks.py');
  fires(
    'a UUID assigned to a token name',
    `HEROKU_API_KEY=${[8, 4, 4, 4, 12].map((length) => randomFrom(HEX, length)).join('-')}\n`,
    'secret-assignment',
    'ci.env.sh',
  );
  fires(
    'Kubernetes Secret data',
    `apiVersion: v1\nkind: Secret\ndata:\n  password: ${randomBytes(18).toString('base64')}\n`,
    'secret-assignment',
    'k8s/db-secret.yaml',
    4,
  );
  fires('comparison against a literal', `if (password === "${value()}") grant();\n`, 'secret-assignment', 'src/login.js');
});

describe('findSecret: ordinary code and documents stay indexable', () => {
  const clean = (name: string, text: string, relativePath = 'src/sample.ts') => {
    test(name, () => {
      assert.equal(findSecret(text, relativePath), undefined);
    });
  };

  clean(
    'credentials.ts reading the environment',
    [
      "import { env } from 'node:process';",
      'export interface Credentials { apiKey: string; secret: string; token?: string }',
      'export function loadCredentials(): Credentials {',
      "  const apiKey = process.env.API_KEY ?? '';",
      '  const secret = env.CLIENT_SECRET;',
      "  if (!apiKey) throw new Error('API_KEY is not set');",
      '  return { apiKey, secret: secret ?? "", token: process.env["TOKEN"] };',
      '}',
    ].join('\n'),
    'src/auth/credentials.ts',
  );
  clean(
    'code that handles tokens without literals',
    [
      'const token = getToken(request);',
      'const password = req.body.password;',
      'let apiKey: string;',
      'this.accessToken = response.data.access_token;',
      "headers['Authorization'] = `Bearer ${token}`;",
      'const secret = await vault.read(`secret/${name}`);',
      'if (token == null || token.length === 0) return;',
      'tokens.push(token); const tokenizer = new Tokenizer(source);',
      'for (const key of Object.keys(map)) { const value = map[key]; }',
    ].join('\n'),
  );
  clean(
    'weak fixture passwords in tests',
    "self.client.login(username='admin', password='adminpass123')\nuser = User(password='guest-1234-guest')\n",
    'tests/test_views.py',
  );
  clean(
    'Python reading os.environ',
    'import os\nAPI_KEY = os.environ["API_KEY"]\npassword = os.getenv("DB_PASSWORD")\ntoken = settings.TOKEN\npass\n',
    'app/settings.py',
  );
  clean(
    'bare identifiers are expressions in code',
    `token = someVariable${randomFrom(DIGITS, 3)}abc\napi_key = config.keys.primary2\n`,
    'app/conf.py',
  );
  clean(
    'config placeholders and references',
    [
      'password: ${DB_PASSWORD}',
      'api_key: "<your-api-key>"',
      'token: your-api-key-here',
      'secret: changeme',
      'client_secret: "xxxxxxxxxxxxxxxxxxxx"',
      'password: "********"',
      'password: ""',
      'auth_token: {{ vault_token }}',
      'github_token: ${{ secrets.GITHUB_TOKEN }}',
      'password: "password123"',
      'password: "P4ssword-for-testing-only"',
      'api_key: %(API_KEY)s',
    ].join('\n'),
    'config/app.yaml',
  );
  clean(
    'names that only mention a secret',
    [
      "const tokenUrl = 'https://oauth2.googleapis.com/token';",
      "const secretName = 'prod-db-credentials-v2';",
      `const passwordHash = '$2b$10$${randomFrom(BASE64, 53)}';`,
      `const primaryKey = '${randomFrom(HEX, 32)}';`,
      `const cacheKey = 'user:${randomFrom(HEX, 24)}';`,
      "const passwordMessage = 'errors.password.tooShort';",
      "const tokenType = 'Bearer';",
      "const ACCESS_TOKEN_KEY = 'app.session.accessToken';",
      "const authority = 'https://login.microsoftonline.com/common';",
      "const monkey = 'Banana123Banana456';",
      "const bypass = 'A1b2C3d4E5f6G7h8';",
    ].join('\n'),
  );
  clean('identifier-like values with a digit or two', "const authToken = 'AccessToken2Factory';\nconst secret = 'SecretsManagerV2';\n");
  clean(
    'lockfile hashes, UUIDs and git SHAs',
    [
      `"integrity": "sha512-${randomBytes(64).toString('base64')}",`,
      `"resolved": "https://registry.npmjs.org/x/-/x-1.0.0.tgz#${randomFrom(HEX, 40)}",`,
      `id: ${[8, 4, 4, 4, 12].map((length) => randomFrom(HEX, length)).join('-')}`,
      `commit ${randomFrom(HEX, 40)}`,
      `head: ${randomFrom(HEX, 40)}`,
      `checksum = "${randomFrom(HEX, 64)}"`,
    ].join('\n'),
    'docs/notes.md',
  );
  clean(
    'documentation mentioning a private-key header without a body',
    [
      'Paste the contents of your key, starting with `-----BEGIN RSA ' + pk + '-----`, into the field.',
      '',
      '```',
      '-----BEGIN OPENSSH ' + pk + '-----',
      '...',
      '-----END OPENSSH ' + pk + '-----',
      '```',
      "if (pem.startsWith('-----BEGIN " + pk + "-----')) { return parsePkcs8(pem); }",
    ].join('\n'),
    'docs/keys.md',
  );
  clean(
    'documentation examples of token formats',
    [
      'An access key id looks like ' + 'AK' + 'IA' + 'IOSFODNN7' + 'EXAMPLE' + '.',
      'Use a bot token (' + 'xo' + 'xb-your-token) or ' + 'xo' + 'xb-not-a-real-token-this-will-not-work.',
      'Webhook: https://hooks.' + 'slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
      'GitHub tokens start with ' + 'gh' + 'p_ and are 40 characters long.',
      'Set ' + 'gh' + 'p_' + 'x'.repeat(36) + ' as the token.',
    ].join('\n'),
    'docs/tokens.md',
  );
  clean(
    'URLs with placeholder or local credentials',
    [
      'postgres://postgres:postgres@localhost:5432/app',
      'mongodb://admin:${MONGO_PASSWORD}@mongo:27017',
      `redis://user:${secretValue(20)}@localhost:6379`,
      `https://user:${secretValue(20)}@example.com/path`,
      'https://user:<password>@host.internal/path',
      'https://user:he%2F%2Fo@pypi.company.com/simple',
    ].join('\n'),
    'docs/urls.md',
  );
  clean('a registry config that names a registry only', 'registry=https://registry.npmjs.org/\nsave-exact=true\n', '.npmrc');
});

describe('secret heuristics', () => {
  test('entropy: random values clear the bar, repetitive and word-like values do not', () => {
    assert.ok(shannonEntropy('aaaaaaaaaaaa') === 0);
    assert.ok(shannonEntropy(randomFrom(ALNUM, 32)) > 4);
    for (let round = 0; round < 50; round++) {
      assert.ok(isSecretLikeValue(secretValue(24)), 'random alphanumeric');
      assert.ok(isSecretLikeValue(randomFrom(HEX, 32) + '1'), 'random hex');
    }
    for (const value of [
      '1234567890123456',
      '000000000000000000',
      'correcthorsebatterystaple',
      'SomeVeryLongClassName1',
      'x-api-key-header-1',
      'react-app-v1-release',
    ]) {
      assert.equal(isSecretLikeValue(value), false, value);
    }
  });

  test('typed passwords are secrets whatever symbol they start with; references and formats are not', () => {
    for (let round = 0; round < 200; round++) {
      const value =
        randomFrom('!@#%^&*', 1) + randomFrom(ALNUM, 10) + randomFrom('0123456789', 2) + randomFrom('!@#%^&*', 1) + randomFrom(ALNUM, 10);
      assert.ok(isSecretLikeValue(value), value);
    }
    for (const value of [
      '$DB_PASSWORD_VALUE',
      '%DB_PASSWORD_VALUE%',
      '@vault.db.credential',
      '@env:DB_CREDENTIAL',
      '&credential;',
      '${DB_CREDENTIAL_1}',
      '#{vault.dbCredential}',
      'db-%s-credential-9',
      '{"k": "v2x!"}',
    ]) {
      assert.equal(isSecretLikeValue(value), false, value);
    }
  });

  test("the project's own exclusion sources and this test are not flagged", () => {
    const root = path.resolve(__dirname, '..', '..', '..');
    for (const relative of [
      'src/core/exclusion/secrets.ts',
      'src/core/exclusion/pathRules.ts',
      'src/core/exclusion/contentRules.ts',
      'test/core/exclusion.test.ts',
    ]) {
      const file = path.join(root, relative);
      // A renamed or moved source must fail here, not be skipped: otherwise nothing is checked.
      assert.ok(fs.existsSync(file), `${relative} exists`);
      assert.equal(findSecret(fs.readFileSync(file, 'utf8'), relative), undefined, relative);
    }
  });

  // The timeout bounds the time (no wall-clock assertion); the assertions show that the scan got
  // through each input instead of giving up on it: a token after it is still found, on its line.
  test('pathological input stays linear and does not hide a secret after it', { timeout: 20_000 }, () => {
    const inputs = [
      'password = "' + 'a1'.repeat(100_000),
      'token: ' + 'Ab3'.repeat(100_000),
      'eyJ' + 'a'.repeat(200_000) + '.eyJ' + 'b'.repeat(200_000),
      ('-----BEGIN RSA ' + pk + '-----\n').repeat(5_000),
      ('xo' + 'xb-1-').repeat(50_000),
      'https://' + 'a:'.repeat(100_000),
      'apiKey'.repeat(100_000) + ' = ',
      ' '.repeat(300_000) + 'secret =',
    ];
    for (const input of inputs) {
      const token = samples.githubClassic('p');
      const finding = findSecret(`${input}\n${token}\n`, 'config/x.yaml');
      assert.deepEqual(finding, { rule: 'github-token', line: input.split('\n').length + 1 }, input.slice(0, 40));
    }
  });
});
