import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ExecIptables } from '../base/iptables-runner.js';
import { createLogger } from '../machinery/logger.js';
import { firstMissing, missingCommand, missingRoot, skipUnless } from '../testing/requirements.js';
import { IptablesEnforcer } from './iptables-enforcer.js';
import { computePolicyChains } from './policy-rules.js';

const IN_NETNS = 'SKIFF_NETPOL_TEST_NETNS';
const save = () => execFileSync('iptables-save', ['-t', 'filter']).toString();

if (process.env[IN_NETNS] === '1') {
  // inside the private network namespace made below: its iptables are ours alone
  describe('IptablesEnforcer on the kernel', () => {
    it('programs computed chains atomically, deletes stale ones, and removes everything on stop', async () => {
      const enforcer = new IptablesEnforcer({ iptables: new ExecIptables(), logger: createLogger('netpol-test', {}, () => undefined) });
      const pod = (name: string, ip: string, ports?: { name: string; containerPort: number; protocol?: string }[]) => ({ metadata: { namespace: 'web', name, labels: { app: name } }, spec: { nodeName: 'n1', containers: [{ name: 'c', ports }] }, status: { phase: 'Running', podIP: ip } });
      const chains = computePolicyChains({
        policies: [
          { metadata: { namespace: 'web', name: 'deny' }, spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] } },
          { metadata: { namespace: 'web', name: 'allow' }, spec: { podSelector: { matchLabels: { app: 'a' } }, policyTypes: ['Ingress', 'Egress'],
            ingress: [{ from: [{ podSelector: {} }, { ipBlock: { cidr: '10.0.0.0/8', except: ['10.42.0.0/16'] } }], ports: [{ port: 'http' }, { protocol: 'UDP', port: 53 }, { protocol: 'SCTP', port: 7000, endPort: 7100 }] }],
            egress: [{ to: [{ namespaceSelector: {} }], ports: [{ port: 'http' }] }] } },
        ],
        pods: [pod('a', '10.42.0.2', [{ name: 'http', containerPort: 8080 }]), pod('b', '10.42.0.3')],
        namespaces: [{ metadata: { name: 'web' } }],
        nodeName: 'n1',
        podCIDRs: ['10.42.0.0/24'],
      });
      await enforcer.sync(chains);
      const text = save();
      for (const c of chains.keys()) assert.match(text, new RegExp(`^:${c} `, 'm'));
      assert.match(text, /^-A FORWARD -m comment --comment "kube-router netpol - [^"]*" -j KUBE-ROUTER-FORWARD$/m);
      assert.match(text, /^-A INPUT .*-j KUBE-ROUTER-INPUT$/m);
      assert.match(text, /-A KUBE-NWPLCY-[A-Z2-7]{16} -s 10\.42\.0\.3\/32 -d 10\.42\.0\.2\/32 -p tcp .*--dport 8080 -j MARK --set-xmark 0x10000\/0x10000/);
      assert.match(text, /-p sctp .*--dport 7000:7100 /);

      // a rule another tool inserts above our jump: the next sync moves the jump back to the top, once
      execFileSync('iptables', ['-w', '-I', 'FORWARD', '1', '-m', 'comment', '--comment', 'someone else', '-j', 'ACCEPT']);
      await enforcer.sync(chains);
      const forward = execFileSync('iptables', ['-w', '-S', 'FORWARD']).toString().split('\n').filter((l) => l.startsWith('-A '));
      assert.match(forward[0], /-j KUBE-ROUTER-FORWARD$/);
      assert.equal(forward.filter((l) => l.endsWith('-j KUBE-ROUTER-FORWARD')).length, 1);

      // b's chain goes when nothing selects it any more; a second sync of the same state changes nothing
      const fewer = computePolicyChains({ policies: [], pods: [], namespaces: [], nodeName: 'n1', podCIDRs: [] });
      await enforcer.sync(fewer);
      await enforcer.sync(fewer);
      assert.doesNotMatch(save(), /KUBE-POD-FW-|KUBE-NWPLCY-/);
      assert.equal(save().match(/-j KUBE-ROUTER-FORWARD/g)?.length, 1);

      await enforcer.stop();
      assert.doesNotMatch(save(), /KUBE-ROUTER|KUBE-POD-FW|KUBE-NWPLCY/);
    });
  });
} else {
  const requirements = skipUnless(firstMissing(missingRoot(), missingCommand('iptables', ['--version'], 'apt install iptables'), missingCommand('unshare', ['--version'])));
  describe('IptablesEnforcer', requirements, () => {
    it('passes against the real kernel, in a private network namespace so the host\'s rules stay untouched', async () => {
      const self = fileURLToPath(import.meta.url);
      const env: NodeJS.ProcessEnv = { ...process.env, [IN_NETNS]: '1' };
      delete env.NODE_TEST_CONTEXT;
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
