/**
 * Drives skiff with the official Python client (Debian's python3-kubernetes)
 * as a user would: the pytest files beside this one run against a fresh
 * `skiff server`, one node:test per file so a failure names its area.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { firstMissing, missingCommand, skipUnless } from '../../../src/testing/requirements.js';
import { firstNodeName, kubectlFor, removeDir, ROOT, run, startServer, type ServerProcess } from '../harness.js';

const PYTHON = '/usr/bin/python3';
const DIR = join(ROOT, 'test/e2e/clients/python');
const requirement = skipUnless(
  firstMissing(
    missingCommand(PYTHON, ['-c', 'import kubernetes'], 'apt-get install python3-kubernetes'),
    missingCommand(PYTHON, ['-m', 'pytest', '--version'], 'apt-get install python3-pytest'),
  ),
);

let server: ServerProcess | undefined;
let nodeName = '';

before(async () => {
  if (requirement.skip) return;
  server = await startServer({ command: 'server' });
  nodeName = await firstNodeName(kubectlFor(server.kubeconfig));
});

after(async () => {
  await server?.stop();
  if (server) await removeDir(server.dataDir);
});

for (const file of readdirSync(DIR).filter((f) => /^test_.*\.py$/.test(f)).sort()) {
  test(`python3-kubernetes: ${file}`, requirement, async () => {
    const r = await run(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--rootdir', DIR, join(DIR, file)], {
      env: { SKIFF_KUBECONFIG: server!.kubeconfig, SKIFF_NODE: nodeName, SKIFF_NODE_BIN: process.execPath, PYTHONDONTWRITEBYTECODE: '1' },
      timeoutMs: 240_000,
    });
    assert.equal(r.code, 0, `pytest ${file} failed:\n${r.stdout}\n${r.stderr}`);
  });
}
