import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { createLogger } from '../../machinery/logger.js';
import { firstMissing, missingCommand, missingRoot, skipUnless } from '../../testing/requirements.js';
import { proxyModeConformance } from '../proxy-mode-conformance.js';
import { ExecConntrack } from './conntrack.js';
import { IptablesProxier } from './iptables-proxier.js';
import { ExecIptables } from '../../base/iptables-runner.js';

const IN_NETNS = 'SKIFF_PROXY_TEST_NETNS';

if (process.env[IN_NETNS] === '1') {
  // Inside the private network namespace made below: its iptables and conntrack are ours alone.
  execFileSync('ip', ['link', 'set', 'lo', 'up']);
  // A host has a routable address; MASQUERADE (the SNAT of hairpin and node port traffic) needs one to pick.
  execFileSync('ip', ['link', 'add', 'skiff-t0', 'type', 'veth', 'peer', 'name', 'skiff-t1']);
  execFileSync('ip', ['addr', 'add', '10.99.0.1/24', 'dev', 'skiff-t0']);
  for (const dev of ['skiff-t0', 'skiff-t1']) execFileSync('ip', ['link', 'set', dev, 'up']);
  proxyModeConformance('iptables', () => new IptablesProxier({
    iptables: new ExecIptables(),
    conntrack: new ExecConntrack(),
    nodeName: 'n1',
    logger: createLogger('proxy-test', {}, () => undefined),
  }));
} else {
  const requirements = skipUnless(firstMissing(missingRoot(), missingCommand('iptables', ['--version'], 'apt install iptables'), missingCommand('conntrack', ['--version'], 'apt install conntrack'), missingCommand('unshare', ['--version'])));
  describe('IptablesProxier', requirements, () => {
    it('passes the proxy-mode conformance suite, run in a private network namespace so the host\'s rules stay untouched', async () => {
      const self = fileURLToPath(import.meta.url);
      const env: NodeJS.ProcessEnv = { ...process.env, [IN_NETNS]: '1' };
      delete env.NODE_TEST_CONTEXT; // a test run of its own, not a subtest of this one
      const child = spawn('unshare', ['--net', process.execPath, '--import', 'tsx', '--test', '--test-reporter', 'tap', self], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, 0, output);
      assert.match(output, /# pass [1-9]/);
      assert.match(output, /# fail 0/);
    });
  });
}
