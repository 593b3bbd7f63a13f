import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Loads a TypeScript module as bin/skiff.js does (tsx, then the hook) and
 * counts the Object.defineProperty calls its function declarations make:
 * keepNames' helper makes one per function, the identity none.
 */
async function defineCalls(withHook: boolean): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-keep-names-'));
  try {
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    // runs before the probe's body, so the probe's helper captures the counting defineProperty
    await writeFile(join(dir, 'spy.ts'), `const real = Object.defineProperty;\nexport const calls = { n: 0 };\nObject.defineProperty = ((o: object, k: PropertyKey, d: PropertyDescriptor) => (k === 'name' && calls.n++, real(o, k, d))) as typeof real;\n`);
    await writeFile(join(dir, 'probe.ts'), `import { calls } from './spy.js';\nfunction one(): number { return 1; }\nconst two = () => 2;\nexport const n = calls.n + one() + two() - 3;\n`);
    const hook = withHook ? `register(${JSON.stringify(join(ROOT, 'bin/no-keep-names.mjs'))}, import.meta.url);` : '';
    const script = `import { register } from 'node:module'; import { register as tsx } from 'tsx/esm/api'; tsx(); ${hook} const m = await import(${JSON.stringify(join(dir, 'probe.ts'))}); console.log(m.n);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    return Number(stdout.trim());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('tsx names functions with a defineProperty each; the hook of bin/skiff.js turns that off', async () => {
  // if tsx stops emitting its helper this way, the first assertion says so (the hook would silently do nothing)
  assert.ok((await defineCalls(false)) >= 2, "tsx's keepNames helper as the hook expects it");
  assert.equal(await defineCalls(true), 0);
});

test('functions keep their names without the helper', async () => {
  const { stdout } = await run(process.execPath, ['bin/skiff.js', '--help'], { cwd: ROOT });
  assert.match(stdout, /skiff/);
  const script = `import { register } from 'node:module'; import { register as tsx } from 'tsx/esm/api'; tsx(); register(${JSON.stringify(join(ROOT, 'bin/no-keep-names.mjs'))}, import.meta.url); const m = await import(${JSON.stringify(join(ROOT, 'src/apiserver/filters/request-timeout.ts'))}); console.log(m.withRequestTimeout.name, m.requestTimedOut.name);`;
  const out = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  assert.equal(out.stdout.trim(), 'withRequestTimeout requestTimedOut');
});
