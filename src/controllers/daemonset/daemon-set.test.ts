import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { nodeShouldRunDaemonPod, toleratesTaint } from './node-eligibility.js';
import { daemonPodTargetNode, newDaemonPod, withDaemonTolerations, withNodeNameAffinity } from './daemon-pod.js';
import { planDaemonSet, scaledValue, type DaemonNode } from './daemon-set-plan.js';

const node = (name: string, labels: Record<string, string> = {}, taints: Node['spec'] = {}): Node => ({ metadata: { name, labels }, spec: taints });
const fit = (n: Node, spec: Partial<PodSpec>) => nodeShouldRunDaemonPod(n, withNodeNameAffinity(withDaemonTolerations({ containers: [], ...spec }), n.metadata!.name!));

test('tolerations match taints by key, operator, value and effect', () => {
  const taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
  assert.equal(toleratesTaint({ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, taint), true);
  assert.equal(toleratesTaint({ key: 'dedicated', value: 'gpu' }, taint), true, 'empty effect matches all; operator defaults to Equal');
  assert.equal(toleratesTaint({ key: 'dedicated', operator: 'Equal', value: 'cpu' }, taint), false);
  assert.equal(toleratesTaint({ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, taint), false);
  assert.equal(toleratesTaint({ operator: 'Exists' }, taint), true, 'empty key with Exists tolerates everything');
  assert.equal(toleratesTaint({ value: 'gpu' }, taint), false);
});

test('eligibility: node selector, required affinity, taints and the daemon default tolerations', () => {
  assert.deepEqual(fit(node('a'), {}), { shouldRun: true, shouldContinueRunning: true });
  assert.equal(fit(node('a', { disk: 'hdd' }), { nodeSelector: { disk: 'ssd' } }).shouldRun, false);
  assert.equal(fit(node('a', { disk: 'ssd' }), { nodeSelector: { disk: 'ssd' } }).shouldRun, true);
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] }, { matchExpressions: [{ key: 'gpus', operator: 'Gt', values: ['2'] }] }] } } };
  assert.equal(fit(node('a', { zone: 'z1' }), { affinity }).shouldRun, true);
  assert.equal(fit(node('a', { gpus: '4' }), { affinity }).shouldRun, true, 'terms are ORed');
  assert.equal(fit(node('a', { zone: 'z2', gpus: '1' }), { affinity }).shouldRun, false);
  const tainted = node('t', {}, { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] });
  assert.deepEqual(fit(tainted, {}), { shouldRun: false, shouldContinueRunning: true }, 'NoSchedule keeps what already runs');
  assert.equal(fit(tainted, { tolerations: [{ key: 'dedicated', operator: 'Exists' }] }).shouldRun, true);
  const evicting = node('e', {}, { taints: [{ key: 'dedicated', effect: 'NoExecute' }] });
  assert.deepEqual(fit(evicting, {}), { shouldRun: false, shouldContinueRunning: false });
  // The default tolerations let daemons run on cordoned and not-ready nodes.
  const cordoned = node('c', {}, { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] });
  assert.deepEqual(fit(cordoned, {}), { shouldRun: true, shouldContinueRunning: true });
  const noNet = node('n', {}, { taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }] });
  assert.equal(fit(noNet, {}).shouldRun, false);
  assert.equal(fit(noNet, { hostNetwork: true }).shouldRun, true);
  assert.equal(fit(node('a'), { nodeName: 'b' }).shouldRun, false);
});

test('daemon pods are pinned by node affinity, keeping the template terms', () => {
  const ds: DaemonSet = {
    metadata: { name: 'agent', namespace: 'kube-system', uid: 'u', generation: 3 },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'os', operator: 'In', values: ['linux'] }] }] } } } } },
    },
  };
  const pod = newDaemonPod(ds, 'node-1', 'abc');
  assert.deepEqual(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [
    { matchExpressions: [{ key: 'os', operator: 'In', values: ['linux'] }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] },
  ]);
  assert.equal(daemonPodTargetNode(pod), 'node-1');
  assert.deepEqual(pod.metadata?.labels, { app: 'agent', 'controller-revision-hash': 'abc', 'pod-template-generation': '3' });
  assert.equal(pod.spec?.tolerations?.length, 6);
  assert.equal(daemonPodTargetNode({ spec: { containers: [], nodeName: 'x' } }), 'x');
});

let seq = 0;
function pod(rev: 'old' | 'new', ready = true, extra: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: { name: `p${seq++}`, labels: { rev }, creationTimestamp: `2024-01-01T00:00:${String(seq).padStart(2, '0')}Z`, ...extra },
    status: { phase: ready ? 'Running' : 'Pending', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}
const on = (name: string, pods: Pod[], shouldRun = true, shouldContinueRunning = true): DaemonNode => ({ name, fit: { shouldRun, shouldContinueRunning }, pods });
function plan(nodes: DaemonNode[], o: { maxUnavailable?: number; maxSurge?: number; strategy?: 'RollingUpdate' | 'OnDelete' } = {}) {
  const p = planDaemonSet({ nodes, orphanedPods: [], isUpdated: (x) => x.metadata?.labels?.rev === 'new', strategy: o.strategy ?? 'RollingUpdate', maxUnavailable: o.maxUnavailable ?? 1, maxSurge: o.maxSurge ?? 0, minReadySeconds: 0, now: 0 });
  return { create: p.create, delete: p.delete.map((d) => d.metadata?.name) };
}

test('manage: create where missing, delete where evicted, replace failed, drop duplicates', () => {
  const dup = [pod('new'), pod('new')];
  const evicted = pod('new');
  const failed = pod('new');
  failed.status!.phase = 'Failed';
  const r = plan([on('a', []), on('b', dup), on('c', [evicted], false, false), on('d', [failed]), on('e', [pod('new')], false, true), on('f', [pod('new', false, { deletionTimestamp: 'x' })])]);
  assert.deepEqual(r.create, ['a']);
  assert.deepEqual(r.delete.sort(), [dup[1].metadata?.name, evicted.metadata?.name, failed.metadata?.name].sort());
});

test('rolling update without surge: unavailable old pods first, then up to maxUnavailable', () => {
  const notReadyOld = pod('old', false);
  const olds = [pod('old'), pod('old'), pod('old')];
  const r = plan([on('a', [olds[0]]), on('b', [olds[1]]), on('c', [olds[2]]), on('d', [notReadyOld])], { maxUnavailable: 2 });
  // d is already unavailable (1 of 2 used), so one more available pod may go.
  assert.deepEqual(r.delete, [notReadyOld.metadata?.name, olds[0].metadata?.name]);
  const waiting = plan([on('a', [pod('new', false)]), on('b', [pod('old')])], { maxUnavailable: 1 });
  assert.deepEqual(waiting.delete, [], 'a new pod still starting uses the budget');
  assert.deepEqual(plan([on('a', [pod('old')])], { strategy: 'OnDelete' }).delete, []);
});

test('rolling update with surge: new pod beside the old, old removed once the new is available', () => {
  const oldA = pod('old');
  const r = plan([on('a', [oldA]), on('b', [pod('old')])], { maxSurge: 1, maxUnavailable: 0 });
  assert.deepEqual(r, { create: ['a'], delete: [] });
  const r2 = plan([on('a', [oldA, pod('new')]), on('b', [pod('old')])], { maxSurge: 1, maxUnavailable: 0 });
  assert.deepEqual(r2, { create: ['b'], delete: [oldA.metadata?.name] });
  const r3 = plan([on('a', [oldA, pod('new', false)]), on('b', [pod('old')])], { maxSurge: 1, maxUnavailable: 0 });
  assert.deepEqual(r3, { create: [], delete: [] });
});

test('intstr scaling rounds percentages up', () => {
  assert.equal(scaledValue('25%', 3, 1), 1);
  assert.equal(scaledValue('50%', 5, 1), 3);
  assert.equal(scaledValue(2, 5, 1), 2);
  assert.equal(scaledValue(undefined, 5, 1), 1);
});
