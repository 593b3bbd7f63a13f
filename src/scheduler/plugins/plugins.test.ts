import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { CycleState } from '../framework/cycle-state.js';
import { NodeInfo } from '../framework/node-info.js';
import { PodInfo } from '../framework/pod-info.js';
import { Code, type Status } from '../framework/status.js';
import { FitError } from '../framework/fit-error.js';
import { SchedulerCache } from '../cache/scheduler-cache.js';
import { NodeResourcesFit } from './node-resources-fit/node-resources-fit.js';
import { NodeAffinity } from './node-affinity/node-affinity.js';
import { TaintToleration } from './taint-toleration/taint-toleration.js';
import { NodePorts } from './node-ports/node-ports.js';
import { PodTopologySpread } from './pod-topology-spread/pod-topology-spread.js';
import { InterPodAffinity } from './inter-pod-affinity/inter-pod-affinity.js';
import { pickCandidate } from './default-preemption/default-preemption.js';

function node(name: string, labels: Record<string, string> = {}, cpu = '2', taints?: Node['spec'] extends infer S ? (S extends { taints?: infer T } ? T : never) : never): NodeInfo {
  return new NodeInfo({ metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec: { taints }, status: { allocatable: { cpu, memory: '4Gi', pods: '3' } } });
}

function pod(name: string, spec: Partial<Pod['spec']> = {}, labels: Record<string, string> = {}, cpu?: string): PodInfo {
  return new PodInfo({ metadata: { name, namespace: 'default', labels }, spec: { containers: [{ name: 'c', resources: cpu ? { requests: { cpu } } : {} }], ...spec } });
}

test('NodeResourcesFit rejects with every insufficient resource and scores LeastAllocated', () => {
  const fit = new NodeResourcesFit();
  const n = node('n');
  n.addPod(pod('a', {}, {}, '1500m'));
  const s = fit.filter(new CycleState(), pod('b', {}, {}, '1'), n)!;
  assert.equal(s.code, Code.Unschedulable);
  assert.deepEqual(s.reasons, ['Insufficient cpu']);
  assert.equal(fit.filter(new CycleState(), pod('c', {}, {}, '3'), node('m'))!.code, Code.UnschedulableAndUnresolvable);
  n.addPod(pod('x'));
  n.addPod(pod('y'));
  assert.deepEqual(fit.filter(new CycleState(), pod('z'), n)!.reasons, ['Too many pods']);
  assert.ok(fit.score(new CycleState(), pod('p', {}, {}, '100m'), node('empty')) > fit.score(new CycleState(), pod('p', {}, {}, '100m'), n));
  const most = new NodeResourcesFit({ scoringStrategy: { type: 'MostAllocated' } });
  assert.ok(most.score(new CycleState(), pod('p', {}, {}, '100m'), node('empty')) < most.score(new CycleState(), pod('p', {}, {}, '100m'), n));
});

test('init containers count as a max, overhead adds', () => {
  const p = pod('p', { initContainers: [{ name: 'i', resources: { requests: { cpu: '2' } } }], overhead: { cpu: '250m' } }, {}, '1');
  assert.equal(p.requests.milliCPU, 2250);
});

test('NodeAffinity supports nodeSelector and all operators including Gt/Lt', () => {
  const na = new NodeAffinity();
  const n = node('n', { zone: 'a', gen: '5' });
  const req = (operator: string, values?: string[]) => pod('p', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: operator === 'Gt' || operator === 'Lt' ? 'gen' : 'zone', operator, values }] }] } } } });
  assert.equal(na.filter(new CycleState(), req('In', ['a']), n), undefined);
  assert.equal(na.filter(new CycleState(), req('NotIn', ['a']), n)?.code, Code.UnschedulableAndUnresolvable);
  assert.equal(na.filter(new CycleState(), req('Exists'), n), undefined);
  assert.equal(na.filter(new CycleState(), req('DoesNotExist'), n)?.code, Code.UnschedulableAndUnresolvable);
  assert.equal(na.filter(new CycleState(), req('Gt', ['4']), n), undefined);
  assert.equal(na.filter(new CycleState(), req('Lt', ['4']), n)?.code, Code.UnschedulableAndUnresolvable);
  assert.equal(na.filter(new CycleState(), pod('p', { nodeSelector: { zone: 'b' } }), n)?.reasons[0], "node(s) didn't match Pod's node affinity/selector");
});

test('TaintToleration filters NoSchedule and scores PreferNoSchedule', () => {
  const tt = new TaintToleration();
  const tainted = node('t', {}, '2', [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
  assert.equal(tt.filter(new CycleState(), pod('p'), tainted)?.reasons[0], 'node(s) had untolerated taint {dedicated: gpu}');
  assert.equal(tt.filter(new CycleState(), pod('p', { tolerations: [{ key: 'dedicated', operator: 'Exists' }] }), tainted), undefined);
  const state = new CycleState();
  const p = pod('p');
  tt.preScore(state, p);
  const scores = [{ name: 'a', score: tt.score(state, p, node('a', {}, '2', [{ key: 'k', effect: 'PreferNoSchedule' }])) }, { name: 'b', score: tt.score(state, p, node('b')) }];
  tt.normalizeScore(state, p, scores);
  assert.deepEqual(scores.map((s) => s.score), [0, 100]);
});

test('NodePorts detects host port clashes, 0.0.0.0 with any IP', () => {
  const np = new NodePorts();
  const n = node('n');
  n.addPod(pod('a', { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080, hostIP: '10.0.0.1' }] }] }));
  const state = new CycleState();
  const p = pod('b', { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080 }] }] });
  np.preFilter(state, p);
  assert.equal(np.filter(state, p, n)?.code, Code.Unschedulable);
  assert.equal(np.preFilter(new CycleState(), pod('c'))?.code, Code.Skip);
});

test('PodTopologySpread enforces maxSkew over zones', () => {
  const cache = new SchedulerCache();
  for (const [name, zone] of [['a1', 'a'], ['b1', 'b']]) cache.addNode(node(name, { zone }).node!);
  cache.addPod({ ...pod('x', {}, { app: 'w' }).pod, spec: { ...pod('x').pod.spec!, nodeName: 'a1' } });
  const pts = new PodTopologySpread({ snapshot: cache }, { defaultingType: 'List' });
  const p = pod('p', { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'w' } } }] }, { app: 'w' });
  const state = new CycleState();
  assert.equal(pts.preFilter(state, p), undefined);
  assert.equal(pts.filter(state, p, cache.get('a1')!)?.reasons[0], "node(s) didn't match pod topology spread constraints");
  assert.equal(pts.filter(state, p, cache.get('b1')!), undefined);
  assert.equal(pts.filter(state, p, node('nolabel'))?.code, Code.UnschedulableAndUnresolvable);
});

test('InterPodAffinity: anti-affinity both ways and the first pod of an affinity group', () => {
  const cache = new SchedulerCache();
  cache.addNode(node('n1').node!);
  cache.addNode(node('n2').node!);
  const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'db' } } }] } };
  cache.addPod({ ...pod('db-0', { affinity: anti }, { app: 'db' }).pod, spec: { ...pod('db-0', { affinity: anti }).pod.spec!, nodeName: 'n1' } });
  const ipa = new InterPodAffinity({ snapshot: cache, namespaceLabels: () => undefined });
  const incoming = pod('db-1', {}, { app: 'db' });
  const state = new CycleState();
  ipa.preFilter(state, incoming);
  assert.equal(ipa.filter(state, incoming, cache.get('n1')!)?.reasons[0], "node(s) didn't satisfy existing pods anti-affinity rules");
  assert.equal(ipa.filter(state, incoming, cache.get('n2')!), undefined);
  const self = pod('web-0', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } }] } } }, { app: 'web' });
  const s2 = new CycleState();
  ipa.preFilter(s2, self);
  assert.equal(ipa.filter(s2, self, cache.get('n2')!), undefined);
});

test('FitError renders upstream’s message', () => {
  const statuses = new Map<string, Status>();
  const fit = new NodeResourcesFit();
  const na = new NodeAffinity();
  const n = node('n');
  statuses.set('n1', fit.filter(new CycleState(), pod('p', {}, {}, '1500m'), (n.addPod(pod('q', {}, {}, '1')), n))!);
  statuses.set('n2', na.filter(new CycleState(), pod('p', { nodeSelector: { x: 'y' } }), node('m'))!);
  statuses.set('n3', na.filter(new CycleState(), pod('p', { nodeSelector: { x: 'y' } }), node('o'))!);
  const e = new FitError(3, { nodeStatuses: statuses, unschedulablePlugins: new Set(), postFilterMessage: 'preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.' });
  assert.equal(e.message(), "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.");
});

test('preemption picks the fewest, lowest-priority victims', () => {
  const v = (name: string, priority: number) => pod(name, { priority });
  const best = pickCandidate([
    { node: 'a', victims: [v('x', 100)], pdbViolations: 0 },
    { node: 'b', victims: [v('y', 10), v('z', 10)], pdbViolations: 0 },
    { node: 'c', victims: [v('w', 10)], pdbViolations: 0 },
    { node: 'd', victims: [v('u', 1)], pdbViolations: 1 },
  ]);
  assert.equal(best.node, 'c');
});
