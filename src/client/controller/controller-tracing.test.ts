import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { startTestApiServer } from '../../testing/test-api-server.js';
import { runAsComponent } from '../../trace/component-context.js';
import type { ObjectTrace, SpanRecord } from '../../trace/journey.js';
import { inSpan } from '../../trace/spans.js';
import { configureTracing } from '../../trace/tracing.js';
import { SharedInformerFactory } from '../cache/shared-informer-factory.js';
import { waitFor } from '../testing/wait-for.js';
import { Controller } from './controller.js';
import { CONFIG_MAPS } from '../../api/resource-refs.js';

await configureTracing();

test('a write made by a reconcile is the child of the reconcile, which is the child of the watch delivery of the write that caused it', async () => {
  const api = await startTestApiServer({ namespaces: ['a'], watchCache: true });
  const ac = new AbortController();
  try {
    const cms = api.client.resource<ConfigMap>(CONFIG_MAPS).namespace('a');
    const factory = new SharedInformerFactory(api.client);
    const controller = new Controller({
      name: 'copier',
      reconciler: {
        reconcile: async (key) => {
          const name = key.split('/')[1];
          if (name.endsWith('-copy')) return;
          await cms.create({ metadata: { name: `${name}-copy` } }).catch(() => undefined);
        },
      },
    }).watches(factory.forResource<ConfigMap>(CONFIG_MAPS), { enqueue: 'self' });
    const run = runAsComponent('test-controller', () => {
      factory.start(ac.signal);
      return controller.run(ac.signal);
    });
    await runAsComponent('test-user', () => inSpan('user action', { hop: 'request', initiator: 'client' }, () => cms.create({ metadata: { name: 'src' } })));
    await waitFor(async () => (await cms.list()).items.some((c) => c.metadata?.name === 'src-copy'), 'the copy');

    let t: ObjectTrace | undefined;
    await waitFor(async () => {
      t = await api.client.rest.request<ObjectTrace>({ method: 'GET', path: '/apis/trace.skiff.dev/v1/namespaces/a/configmaps/src-copy' });
      // the reconcile span ends after its write: wait until the store has it
      return Boolean(t.traces[0]?.spans.some((s) => s.hop === 'reconcile'));
    }, 'the trace of the copy');
    assert.ok(t);
    assert.equal(t.traces.length, 1);
    const spans = t.traces[0].spans;
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentOf = (s: SpanRecord) => byId.get(s.parentSpanId ?? '');
    const copyCommit = spans.find((s) => s.hop === 'storage' && s.attributes['db.key'] === '/registry/configmaps/a/src-copy')!;
    const copyRequest = parentOf(copyCommit)!;
    assert.equal(copyRequest.name, 'create configmaps');
    const reconcile = parentOf(copyRequest)!;
    assert.equal(reconcile.name, 'copier reconcile');
    assert.equal(reconcile.component, 'test-controller');
    assert.equal(reconcile.initiator, 'queue');
    const delivery = parentOf(reconcile)!;
    assert.equal(delivery.hop, 'watch');
    assert.equal(delivery.initiator, 'watch');
    assert.equal(delivery.component, 'test-controller');
    assert.equal(delivery.attributes['k8s.object.name'], 'src');
    const srcCommit = parentOf(delivery)!;
    assert.equal(srcCommit.hop, 'storage');
    assert.equal(srcCommit.attributes['db.key'], '/registry/configmaps/a/src');
    assert.equal(delivery.attributes['k8s.resource_version'], srcCommit.attributes['k8s.resource_version']);
    const srcRequest = parentOf(srcCommit)!;
    const user = parentOf(srcRequest)!;
    assert.equal(user.name, 'user action');
    assert.equal(user.component, 'test-user');
    assert.equal(user.parentSpanId, undefined, 'one trace per user action, rooted at it');
    assert.deepEqual(reconcile.links.map((l) => l.spanId), [delivery.spanId]);
    ac.abort();
    await run;
    await factory.shutdown();
  } finally {
    ac.abort();
    await api.stop();
  }
});
