import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { indexRelaunch } from '../../src/cli/indexRelaunch';
import { arenaEnvironment, mallocArenaMax } from '../../src/cli/mallocArenas';
import { indexSemiSpaceMb, youngGenerationFlags } from '../../src/cli/youngGeneration';
import { fixtureFactory, tempFile } from './fixtures';

const fixture = fixtureFactory();
const repository = path.resolve(__dirname, '..', '..', '..');
const bin = path.join(repository, 'bin', 'pk.js');
const cli = path.join(repository, 'dist', 'cli.js');

describe('pk index runs with one malloc arena', () => {
  test('one arena only on Linux, and only while MALLOC_ARENA_MAX is unset', () => {
    const relaunched = arenaEnvironment({ PATH: '/bin' }, 'linux');
    assert.deepEqual(relaunched, { PATH: '/bin', MALLOC_ARENA_MAX: mallocArenaMax });
    assert.equal(arenaEnvironment({ MALLOC_ARENA_MAX: '4' }, 'linux'), undefined);
    assert.equal(arenaEnvironment({}, 'darwin'), undefined);
    assert.equal(arenaEnvironment({}, 'win32'), undefined);
  });

  test('index relaunches until it has one arena on Linux and the young generation flag, keeping node flags and a semi-space the user named', () => {
    const semi = `--max-semi-space-size=${indexSemiSpaceMb}`;
    assert.deepEqual(indexRelaunch(['index', '/work'], { PATH: '/bin' }, 'linux', ['--no-warnings']), {
      env: { PATH: '/bin', MALLOC_ARENA_MAX: mallocArenaMax },
      execArgv: ['--no-warnings', semi],
    });
    assert.deepEqual(indexRelaunch(['index'], { MALLOC_ARENA_MAX: '1' }, 'linux', []), {
      env: { MALLOC_ARENA_MAX: '1' },
      execArgv: [semi],
    });
    assert.deepEqual(indexRelaunch(['index'], {}, 'darwin', []), { env: {}, execArgv: [semi] });
    assert.equal(indexRelaunch(['index'], { MALLOC_ARENA_MAX: '1' }, 'linux', [semi]), undefined);
    assert.equal(indexRelaunch(['index'], {}, 'win32', ['--max-semi-space-size=8']), undefined);
    assert.equal(indexRelaunch(['index'], { NODE_OPTIONS: '--max_semi_space_size=4' }, 'darwin', []), undefined);
    assert.deepEqual(youngGenerationFlags([], '--min-semi-space-size=1'), []);
    for (const command of [[], ['search', 'x'], ['get', 'a.ts#L1-L2'], ['mcp'], ['--help']]) {
      assert.equal(indexRelaunch(command, {}, 'linux', []), undefined, command.join(' '));
    }
  });

  test('bin/pk.js index indexes in a second process that has the variable set, with the same output and exit codes', () => {
    const project = fixture({ 'src/a.ts': 'export function alpha(): number {\n  return 1;\n}\n' });
    const db = tempFile('arena.sqlite');
    const seen = tempFile('arena-seen.txt');
    const preload = tempFile('arena-preload.js');
    fs.writeFileSync(
      preload,
      `require('fs').appendFileSync(${JSON.stringify(seen)}, String(process.env.MALLOC_ARENA_MAX) + ' ' + process.execArgv.join(' ') + '\\n');\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: `--require ${preload}` };
    delete env.MALLOC_ARENA_MAX;
    const indexed = spawnSync(process.execPath, [bin, 'index', project.root, '--db', db, '--json'], {
      encoding: 'utf8',
      env,
      timeout: 60_000,
    });
    assert.equal(indexed.status, 0, indexed.stderr);
    assert.equal((JSON.parse(indexed.stdout) as { reindexed: number }).reindexed, 1, indexed.stdout);
    const values = fs.readFileSync(seen, 'utf8').trim().split('\n');
    const semi = `--max-semi-space-size=${indexSemiSpaceMb}`;
    assert.deepEqual(values, ['undefined ', `${process.platform === 'linux' ? mallocArenaMax : 'undefined'} ${semi}`]);

    const missing = path.join(project.root, 'no-such-folder');
    const viaBin = spawnSync(process.execPath, [bin, 'index', missing, '--db', tempFile('missing.sqlite')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const direct = spawnSync(process.execPath, [cli, 'index', missing, '--db', tempFile('missing2.sqlite')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.notEqual(direct.status, 0);
    assert.equal(viaBin.status, direct.status);
    assert.equal(viaBin.stderr.trim().split('\n').length, 1, viaBin.stderr);
    assert.equal(viaBin.stderr, direct.stderr);
  });
});
