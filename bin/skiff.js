#!/usr/bin/env node
// The `skiff` command: runs the TypeScript sources through tsx.
import { register as registerHooks } from 'node:module';
import { register } from 'tsx/esm/api';

register();
// after tsx, so it sees tsx's output: see no-keep-names.mjs
registerHooks('./no-keep-names.mjs', import.meta.url);
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
// -1: a daemon is running and exits on its own signal handlers. A one-shot command exits once what it wrote has been
// handed over: when stdout is a pipe or socket (a parent process reading it), writes are asynchronous and an
// immediate exit cuts a large output short (`skiff trace --output json` of a whole journey)
if (code >= 0) {
  process.exitCode = code;
  let pending = 2;
  const done = () => --pending === 0 && process.exit(code);
  process.stdout.write('', done);
  process.stderr.write('', done);
}
