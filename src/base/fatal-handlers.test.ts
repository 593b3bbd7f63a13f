import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const module = fileURLToPath(new URL('./fatal-handlers.ts', import.meta.url));
const logger = fileURLToPath(new URL('../machinery/logger.ts', import.meta.url));

function run(body: string): { status: number | null; stderr: string; stdout: string } {
  const script = `
    const { installFatalHandlers } = await import(${JSON.stringify(module)});
    const { createLogger } = await import(${JSON.stringify(logger)});
    installFatalHandlers(createLogger('test'));
    ${body}
    setTimeout(() => console.log('limped on'), 200);
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

for (const [kind, body] of [
  ['unhandled promise rejection', `Promise.reject(new Error('lost write'));`],
  ['uncaught exception', `setTimeout(() => { throw new Error('lost write'); }, 0);`],
] as const) {
  test(`an ${kind} is logged with its stack and the process exits 1`, () => {
    const r = run(body);
    assert.equal(r.status, 1, r.stderr);
    assert.doesNotMatch(r.stdout, /limped on/);
    const line = `${r.stdout}${r.stderr}`.split('\n').find((l) => l.includes(kind));
    assert.ok(line, `no log line in ${r.stdout}${r.stderr}`);
    const entry = JSON.parse(line) as { level: string; error: string };
    assert.equal(entry.level, 'error');
    assert.match(entry.error, /Error: lost write\n\s+at /);
  });
}
