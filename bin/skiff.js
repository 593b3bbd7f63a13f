#!/usr/bin/env node
// The `skiff` command: runs the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
// -1: a daemon is running and exits on its own signal handlers
if (code >= 0) process.exit(code);
