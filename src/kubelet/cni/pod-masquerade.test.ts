import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Iptables, Jump } from '../../base/iptables-runner.js';
import { ensurePodMasquerade, POD_MASQ_CHAIN, podMasqueradeRules, removePodMasquerade } from './pod-masquerade.js';

function recorder() {
  const calls: string[] = [];
  const ipt: Iptables = {
    ensureJump: async (j: Jump) => void calls.push(`jump ${j.table} ${j.from} ${(j.extra ?? []).join(' ')} -> ${j.to}`),
    deleteJump: async (j: Jump) => void calls.push(`unjump ${j.from} ${(j.extra ?? []).join(' ')} -> ${j.to}`),
    restore: async (input: string) => void calls.push(`restore ${input}`),
    chains: async () => [],
    hasRandomFully: async () => true,
  };
  return { calls, ipt };
}

test('the pod CIDR leaves through one masquerade chain: not for pod-to-pod or multicast traffic', async () => {
  const { calls, ipt } = recorder();
  let appended: string[] = [];
  await ensurePodMasquerade('10.42.0.0/24', ipt, (rule) => (appended = rule));
  assert.equal(calls[0], `restore ${podMasqueradeRules('10.42.0.0/24')}`);
  assert.deepEqual([appended.slice(0, 2), appended.slice(-2)], [['-s', '10.42.0.0/24'], ['-j', POD_MASQ_CHAIN]]);
  const rules = podMasqueradeRules('10.42.0.0/24').split('\n');
  // RETURN for the pod network itself comes before the MASQUERADE
  assert.ok(rules.indexOf(`-A ${POD_MASQ_CHAIN} -d 10.42.0.0/24 -j RETURN`) < rules.indexOf(`-A ${POD_MASQ_CHAIN} -j MASQUERADE`));
  assert.ok(rules.includes(`-A ${POD_MASQ_CHAIN} -d 224.0.0.0/4 -j RETURN`));
  await removePodMasquerade('10.42.0.0/24', ipt);
  assert.equal(calls[1], `unjump POSTROUTING -s 10.42.0.0/24 -> ${POD_MASQ_CHAIN}`);
});
