#!/usr/bin/env node
'use strict';
const cli = require('../dist/cli.js');
const args = process.argv.slice(2);
const relaunch = cli.indexRelaunch(args);
if (relaunch) {
  // The same command in a process started with MALLOC_ARENA_MAX set and a smaller young generation
  // (src/cli/indexRelaunch.ts); signals are passed on.
  const child = require('node:child_process').spawn(process.execPath, [...relaunch.execArgv, __filename, ...args], {
    env: relaunch.env,
    stdio: 'inherit',
  });
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(
      `pk: could not start itself again (${error.message}); run it with MALLOC_ARENA_MAX and --max-semi-space-size set\n`,
    );
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 128 + (require('node:os').constants.signals[signal] ?? 0) : 1);
  });
} else {
  // As `node dist/cli.js` does: that file starts main only when it is the entry script.
  cli.limitHeapGrowth();
  cli.main(args).then((code) => {
    process.exitCode = code;
  });
}
