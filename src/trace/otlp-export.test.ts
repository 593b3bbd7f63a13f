import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { runAsComponent } from './component-context.js';
import { inSpan } from './spans.js';
import { configureTracing, flushTracing, spanStore } from './tracing.js';

interface ExportRequest {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: { name: string; traceId: string; parentSpanId?: string }[] }[] }[];
}

describe('--tracing-endpoint: OTLP/HTTP export', () => {
  const received: { path: string; type: string; body: ExportRequest }[] = [];
  // a tiny OTLP/HTTP receiver on loopback
  const receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', type: String(req.headers['content-type']), body: JSON.parse(Buffer.concat(chunks).toString()) as ExportRequest });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  before(async () => {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    await configureTracing({ endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces` });
  });
  after(() => new Promise<void>((r) => receiver.close(() => r())));

  it('exports every component’s spans, joined in one trace, besides keeping them in the built-in store', async () => {
    await runAsComponent('kube-scheduler', () =>
      inSpan('schedule default/p', { hop: 'schedule' }, () => runAsComponent('kubelet', () => Promise.resolve())),
    );
    await runAsComponent('kube-controller-manager', () =>
      inSpan('deployment reconcile', { hop: 'reconcile' }, () => inSpan('inner', { hop: 'request' }, () => undefined)),
    );
    await flushTracing();
    assert.ok(received.length > 0, 'the receiver got an export');
    assert.equal(received[0].path, '/v1/traces');
    assert.match(received[0].type, /json/);
    const services = new Map<string, string[]>();
    for (const r of received) {
      for (const rs of r.body.resourceSpans) {
        const name = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        services.set(name, [...(services.get(name) ?? []), ...rs.scopeSpans.flatMap((s) => s.spans.map((x) => x.name))]);
      }
    }
    assert.deepEqual(services.get('kube-scheduler'), ['schedule default/p']);
    assert.deepEqual(services.get('kube-controller-manager')?.sort(), ['deployment reconcile', 'inner']);
    const spans = received.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans)));
    const inner = spans.find((s) => s.name === 'inner')!;
    const outer = spans.find((s) => s.name === 'deployment reconcile')!;
    assert.equal(inner.traceId, outer.traceId);
    assert.ok(inner.parentSpanId, 'the child keeps its parent');
    assert.equal(spanStore.size().spans, 3, 'the built-in store has them too');
  });
});
