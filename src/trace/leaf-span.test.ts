import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SpanStatusCode } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { runAsComponent } from './component-context.js';
import { toTraceRecord } from './journey.js';
import { leafContext, recordLeafSpan } from './leaf-span.js';
import { inSpan } from './spans.js';
import { configureTracing, spanStore } from './tracing.js';

await configureTracing({});

describe('recordLeafSpan', () => {
  it('records a finished child of a recorded span, as the tracer would', async () => {
    let traceId = '';
    let parentId = '';
    const cause = await runAsComponent('kube-apiserver', () =>
      inSpan('create pods', { hop: 'request' }, (parent) => {
        traceId = parent.spanContext().traceId;
        parentId = parent.spanContext().spanId;
        const start = performance.now() - 5;
        recordLeafSpan(parent, 'admission Priority', { hop: 'admission', start, attributes: { 'skiff.plugin': 'Priority' } });
        recordLeafSpan(parent, 'validation', { hop: 'validation', start, error: new Error('spec.containers: Required value') });
        const named = leafContext(parent);
        recordLeafSpan(parent, 'storage create', { hop: 'storage', start, context: named });
        return named;
      }),
    );
    const spans = spanStore.trace(traceId)!;
    const record = toTraceRecord(traceId, spans);
    const byName = new Map(record.spans.map((s) => [s.name, s]));
    const admission = byName.get('admission Priority')!;
    assert.equal(admission.parentSpanId, parentId);
    assert.equal(admission.component, 'kube-apiserver');
    assert.equal(admission.hop, 'admission');
    assert.equal(admission.attributes['skiff.plugin'], 'Priority');
    assert.ok(admission.durationMs >= 4 && admission.durationMs < 60_000, `duration ${admission.durationMs}`);
    assert.ok(Math.abs(admission.start - Date.now()) < 60_000, 'a wall-clock start');
    assert.match(admission.spanId, /^[0-9a-f]{16}$/);
    assert.notEqual(admission.spanId, byName.get('validation')!.spanId);
    assert.equal(byName.get('validation')!.status, 'Error');
    assert.equal(byName.get('validation')!.statusMessage, 'spec.containers: Required value');
    assert.equal(byName.get('storage create')!.spanId, cause.spanId, 'a leaf named before it was recorded keeps that name');
    assert.equal(spans.find((s) => s.name === 'admission Priority')!.status.code, SpanStatusCode.UNSET);
    // the OTLP serializer (the trace API's ?format=otlp, the exporter) takes leaves like any span
    const otlp = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest([...spans])!).toString()) as {
      resourceSpans: { scopeSpans: { spans: { name: string; parentSpanId?: string; startTimeUnixNano: string }[] }[] }[];
    };
    const exported = otlp.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    assert.equal(otlp.resourceSpans.length, 1, 'leaves share their parent’s resource');
    assert.deepEqual(exported.map((s) => s.name).sort(), ['admission Priority', 'create pods', 'storage create', 'validation']);
    assert.ok(Number(exported.find((s) => s.name === 'validation')!.startTimeUnixNano) > 1e18);
  });

  it('records nothing under a span that is not recorded', () => {
    const before = spanStore.size().spans;
    const parent = { isRecording: () => false, spanContext: () => ({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 0 }) };
    recordLeafSpan(parent as never, 'authentication', { hop: 'authentication', start: performance.now() });
    assert.equal(spanStore.size().spans, before);
  });
});
