import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { configureTracing, spanStore } from '../../trace/tracing.js';
import { currentCause } from '../../trace/spans.js';
import { waitFor } from '../testing/wait-for.js';
import type { ListerWatcher } from './list-watcher.js';
import { SharedIndexInformer } from './shared-informer.js';

await configureTracing({});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const WRITE = '00f067aa0ba902b7';

test('objects in the initial list run their handlers linked to the write that made the listed version', async () => {
  const ac = new AbortController();
  const listerWatcher: ListerWatcher<ConfigMap> = {
    list: async () => ({
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '9' },
      items: [
        { metadata: { namespace: 'a', name: 'traced', resourceVersion: '5' } },
        { metadata: { namespace: 'a', name: 'untraced', resourceVersion: '6' } },
      ],
      causes: { '5': { traceparent: `00-${TRACE}-${WRITE}-01`, committed: new Date().toISOString() } },
    }),
    watch: (opts) => ({
      async *[Symbol.asyncIterator]() {
        await new Promise((r) => opts.signal?.addEventListener('abort', r, { once: true }));
      },
    }),
  };
  const informer = new SharedIndexInformer<ConfigMap>({ listerWatcher });
  const seen = new Map<string, string | undefined>();
  informer.addEventHandler({ onAdd: (o) => seen.set(o.metadata!.name!, currentCause()?.traceId) });
  const running = informer.run(ac.signal);
  try {
    await waitFor(() => seen.size === 2, 'both listed objects handled');
    assert.equal(seen.get('traced'), TRACE, 'a handler of a listed object runs in the write’s trace');
    assert.equal(seen.get('untraced'), undefined, 'without a remembered cause, no trace');
    const delivery = spanStore.trace(TRACE)?.find((s) => s.name === 'list ConfigMap');
    assert.ok(delivery, 'a delivery span named after the list');
    assert.equal(delivery.parentSpanContext?.spanId, WRITE);
    assert.equal(delivery.attributes['k8s.resource_version'], '5');
    assert.equal(delivery.attributes['skiff.watch.event'], 'LIST');
  } finally {
    ac.abort();
    await running;
  }
});
