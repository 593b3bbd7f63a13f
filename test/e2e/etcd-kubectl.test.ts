import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startEtcdCluster, type EtcdCluster } from '../../src/storage/etcd/testing/etcd-cluster.js';
import { ROOT, run } from './harness.js';

describe('the kubectl scenario on skiff server --storage etcd://', () => {
  let etcd: EtcdCluster;
  before(async () => {
    etcd = await startEtcdCluster({ size: 1 });
  });
  after(() => etcd?.stop());

  it('passes test/e2e/apiserver-kubectl.test.ts against etcd, and etcdctl sees the objects', async () => {
    // The same scenario file, run as its own test process with the storage pointed at this etcd.
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter', 'tap', 'test/e2e/apiserver-kubectl.test.ts'], {
      cwd: ROOT,
      // Without NODE_TEST_CONTEXT the child is a test run of its own, not a subprocess of ours.
      env: { ...withoutTestContext(process.env), SKIFF_E2E_STORAGE: etcd.storageUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, `the kubectl scenario failed on etcd:\n${output.slice(-8000)}`);
    assert.match(output, /^# pass [1-9]/m);
    assert.match(output, /^# fail 0$/m);

    const keys = await run('etcdctl', ['--endpoints', etcd.endpoints.join(','), 'get', '--prefix', '--keys-only', '/registry/namespaces/'], { env: { ETCDCTL_API: '3' } });
    assert.equal(keys.code, 0, keys.stderr);
    for (const ns of ['default', 'kube-system', 'e2e']) assert.match(keys.stdout, new RegExp(`^/registry/namespaces/${ns}$`, 'm'));
  });
});

function withoutTestContext(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy.NODE_TEST_CONTEXT;
  return copy;
}
