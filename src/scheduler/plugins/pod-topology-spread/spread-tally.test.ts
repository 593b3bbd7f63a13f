import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { selectorFromSet } from '../../../machinery/labels/selector.js';
import { SchedulerCache } from '../../cache/scheduler-cache.js';
import { compileConstraints, countMatching } from './topology-spread-constraint.js';
import { spreadTally } from './spread-tally.js';

const HOST = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

/** A small deterministic generator, so a failure is reproducible. */
function random(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

test('a spread tally agrees with counting every node while nodes and pods come, go and change', () => {
  const rnd = random(7);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
  const cache = new SchedulerCache();
  const node = (i: number, zone: string | undefined, host = true): Node => ({ metadata: { name: `n${i}`, labels: { ...(host ? { [HOST]: `n${i}` } : {}), ...(zone ? { [ZONE]: zone } : {}) } } });
  for (let i = 0; i < 12; i++) cache.addNode(node(i, pick(['a', 'b', 'c'])));
  const pods: Pod[] = [];
  const constraints = compileConstraints({ metadata: { labels: { app: 'web' } } }, [
    { maxSkew: 1, topologyKey: HOST, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } },
    { maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } },
  ]);
  for (let step = 0; step < 400; step++) {
    const r = rnd();
    const names = cache.list().map((ni) => ni.name);
    if (r < 0.4 || pods.length === 0) {
      const p: Pod = { metadata: { name: `p${step}`, namespace: pick(['ns', 'other']), uid: `u${step}`, labels: { app: pick(['web', 'db']) } }, spec: { nodeName: pick(names), containers: [] } };
      pods.push(p);
      cache.addPod(p);
    } else if (r < 0.55) {
      cache.removePod(pods.splice(Math.floor(rnd() * pods.length), 1)[0]);
    } else if (r < 0.65) {
      const i = Math.floor(rnd() * pods.length);
      pods[i] = { ...pods[i], metadata: { ...pods[i].metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } };
      cache.updatePod(pods[i]);
    } else if (r < 0.75) {
      // relabel: another zone, no zone, or no hostname
      const i = Number(pick(names).slice(1));
      cache.updateNode(node(i, pick(['a', 'b', 'c', undefined]), rnd() < 0.8));
    } else if (r < 0.8) {
      cache.addNode(node(100 + step, pick(['a', 'b', 'c'])));
    } else if (r < 0.85 && names.length > 3) {
      cache.removeNode({ metadata: { name: pick(names) } });
    }
    const list = cache.list();
    for (const ns of ['ns', 'other']) {
      const zone = spreadTally(constraints[1], ns, constraints, list);
      const host = spreadTally(constraints[0], ns, constraints, list);
      const want = new Map<string, number>();
      for (const ni of list) {
        const labels = ni.node!.metadata!.labels!;
        if (!(HOST in labels) || !(ZONE in labels)) continue;
        const n = countMatching(ni, selectorFromSet({ app: 'web' }), ns);
        want.set(labels[ZONE], (want.get(labels[ZONE]) ?? 0) + n);
        assert.equal(host.countOn(ni), n, `step ${step}: ${ni.name} in ${ns}`);
      }
      for (const z of ['a', 'b', 'c']) assert.equal(zone.total(z) ?? 0, want.get(z) ?? 0, `step ${step}: zone ${z} in ${ns}`);
    }
  }
});
