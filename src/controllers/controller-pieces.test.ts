import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ControllerDescriptor } from './controller-descriptor.js';
import { selectControllers, UnknownControllerError } from './controller-selection.js';
import { ControllerExpectations, EXPECTATIONS_TIMEOUT_MS } from './expectations.js';
import { slowStartBatch } from './slow-start-batch.js';
import { semanticEqual } from './semantic-equal.js';
import { podsToDelete } from './replicaset/rank-pods-for-deletion.js';
import { resolveFenceposts } from './deployment/fenceposts.js';
import { computeHash, equalIgnoreHash } from './deployment/pod-template-hash.js';
import { readdir } from 'node:fs/promises';
import { CONTROLLERS } from './registry.js';
import { FakeClock } from '../base/fake-clock.js';

const c = (name: string, disabledByDefault = false): ControllerDescriptor => ({ name, disabledByDefault, start: async () => {} });

test('--controllers: * enables defaults, names enable, -names disable, unknown names fail', () => {
  const all = [c('deployment'), c('replicaset'), c('bootstrapsigner', true)];
  const names = (spec: string[]) => selectControllers(all, spec).map((x) => x.name);
  assert.deepEqual(names(['*']), ['deployment', 'replicaset']);
  assert.deepEqual(names(['*', '-deployment', 'bootstrapsigner']), ['replicaset', 'bootstrapsigner']);
  assert.deepEqual(names(['replicaset-controller']), ['replicaset']);
  assert.throws(() => names(['nope']), UnknownControllerError);
});

test('the registry lists every controller folder once, under unique names', async () => {
  const dir = new URL('./', import.meta.url);
  const folders: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const files = await readdir(new URL(`${e.name}/`, dir));
    if (!files.includes('index.ts')) continue;
    const mod = (await import(new URL(`${e.name}/index.ts`, dir).href)) as { controller?: ControllerDescriptor };
    if (mod.controller) folders.push(e.name);
    if (mod.controller) assert.ok(CONTROLLERS.includes(mod.controller), `src/controllers/${e.name} is missing from registry.ts`);
  }
  assert.equal(CONTROLLERS.length, folders.length);
  assert.equal(new Set(CONTROLLERS.map((c) => c.name)).size, CONTROLLERS.length);
  for (const n of ['deployment', 'garbagecollector', 'namespace', 'replicaset']) assert.ok(CONTROLLERS.some((c) => c.name === n), n);
});

test('expectations hold until observed or expired', () => {
  const clock = new FakeClock(0);
  const e = new ControllerExpectations(clock);
  e.expectCreations('a', 2);
  assert.equal(e.satisfied('a'), false);
  e.creationObserved('a');
  assert.equal(e.satisfied('a'), false);
  e.creationObserved('a');
  assert.equal(e.satisfied('a'), true);
  e.expectDeletions('a', ['ns/p1']);
  assert.equal(e.satisfied('a'), false);
  clock.set(clock.now() + EXPECTATIONS_TIMEOUT_MS + 1);
  assert.equal(e.satisfied('a'), true);
});

test('slowStartBatch grows 1, 2, 4 and stops after a failing batch', async () => {
  const calls: number[] = [];
  const r = await slowStartBatch(10, 1, async (i) => {
    calls.push(i);
    if (i === 5) throw new Error('quota');
  });
  // Batches of 1, 2 and 4 ran (indexes 0..6); the batch of 8 never started.
  assert.deepEqual(calls, [0, 1, 2, 3, 4, 5, 6]);
  assert.equal(r.successes, 6);
  assert.equal((r.error as Error).message, 'quota');
});

test('fenceposts round surge up and unavailability down', () => {
  const d = (replicas: number, maxSurge: string | number, maxUnavailable: string | number) => ({ spec: { replicas, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } } }) as never;
  assert.deepEqual(resolveFenceposts(d(3, '25%', '25%')), { maxSurge: 1, maxUnavailable: 0 });
  assert.deepEqual(resolveFenceposts(d(10, '25%', '25%')), { maxSurge: 3, maxUnavailable: 2 });
  assert.deepEqual(resolveFenceposts(d(3, 0, 0)), { maxSurge: 0, maxUnavailable: 1 });
});

test('pod-template-hash is deterministic, key-order independent, and changes with the collision count', () => {
  const a = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'x' }] } };
  const b = { spec: { containers: [{ image: 'x', name: 'c' }] }, metadata: { labels: { app: 'a' } } };
  assert.equal(computeHash(a), computeHash(b));
  assert.match(computeHash(a), /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.notEqual(computeHash(a), computeHash(a, 1));
  assert.ok(equalIgnoreHash(a, { ...a, metadata: { labels: { app: 'a', 'pod-template-hash': 'zzz' } } }));
});

test('deletion ranking: unscheduled, pending, not ready, then newer first', () => {
  const pod = (name: string, extra: Partial<Pod['spec']> & { phase?: string; ready?: boolean; created?: string }): Pod => ({
    metadata: { name, creationTimestamp: extra.created ?? '2024-01-01T00:00:00Z' },
    spec: { containers: [], nodeName: extra.nodeName },
    status: { phase: extra.phase ?? 'Running', conditions: [{ type: 'Ready', status: extra.ready ? 'True' : 'False' }] },
  });
  const pods = [
    pod('ready-old', { nodeName: 'n1', ready: true }),
    pod('ready-new', { nodeName: 'n2', ready: true, created: '2024-02-01T00:00:00Z' }),
    pod('notready', { nodeName: 'n3' }),
    pod('pending', { nodeName: 'n4', phase: 'Pending' }),
    pod('unscheduled', { phase: 'Pending' }),
  ];
  assert.deepEqual(podsToDelete(pods, pods, 4).map((p) => p.metadata?.name), ['unscheduled', 'pending', 'notready', 'ready-new']);
});

test('semanticEqual ignores key order and omitted zero values', () => {
  assert.ok(semanticEqual({ a: 1, b: 0, c: [] }, { a: 1 }));
  assert.ok(!semanticEqual({ a: 1 }, { a: 2 }));
});
