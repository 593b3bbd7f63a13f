import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { toTraceRecord } from '../../trace/journey.js';
import { configureTracing, spanStore } from '../../trace/tracing.js';
import { parseRequestInfo } from '../request-info.js';
import { startRequestTrace } from './request-trace.js';
import { WriteCauses } from './write-causes.js';

await configureTracing({});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

function req(method: string, url: string, traceparent?: string): IncomingMessage {
  return { method, url, headers: traceparent ? { traceparent } : {} } as unknown as IncomingMessage;
}

describe('RequestTrace', () => {
  it('is recorded for writes, for requests joining a sampled caller, never for watches or unsampled callers', () => {
    const causes = new WriteCauses();
    assert.ok(startRequestTrace(req('POST', '/api/v1/namespaces/a/pods'), causes), 'a write starts a trace');
    assert.equal(startRequestTrace(req('GET', '/api/v1/namespaces/a/pods'), causes), undefined, 'a plain read does not');
    assert.equal(startRequestTrace(req('GET', '/api/v1/namespaces/a/pods/p', `00-${TRACE}-${PARENT}-01`), causes)?.traceId, TRACE, 'a read joins a sampled caller');
    assert.equal(startRequestTrace(req('POST', '/api/v1/namespaces/a/pods', `00-${TRACE}-${PARENT}-00`), causes), undefined, 'an unsampled caller is followed');
    assert.equal(startRequestTrace(req('GET', '/api/v1/namespaces/a/pods?watch=true', `00-${TRACE}-${PARENT}-01`), causes), undefined, 'watches are long-running');
    const malformed = startRequestTrace(req('POST', '/api/v1/namespaces/a/pods', 'garbage'), causes);
    assert.ok(malformed && malformed.traceId !== TRACE && /^[0-9a-f]{32}$/.test(malformed.traceId), 'a malformed traceparent starts a new trace');
  });

  it('records its stages and the storage commit as one batch, expanded into spans when read', async () => {
    const causes = new WriteCauses();
    const trace = startRequestTrace(req('POST', '/api/v1/namespaces/a/configmaps?fieldManager=x', `00-${TRACE}-${PARENT}-01`), causes)!;
    trace.describe(parseRequestInfo('POST', '/api/v1/namespaces/a/configmaps', new URLSearchParams()));
    trace.setUser('alice');
    await trace.stage('authentication', 'authentication', async () => undefined);
    await assert.rejects(trace.stage('admission Deny', 'admission', () => Promise.reject(new Error('denied once')), { 'skiff.plugin': 'Deny' }));
    assert.throws(() => trace.stageSync('validation', 'validation', () => { throw new Error('spec: Required value'); }));
    let delivered: string | undefined;
    const res = await trace.commit('create', '/registry/configmaps/a/c', async () => {
      // a watch may deliver the event before the write returns: the cause is known already
      delivered = causes.causeOf(7, '/registry/configmaps/a/c')?.cause.spanId;
      return { succeeded: true, revision: 7, kv: undefined as never };
    });
    assert.equal(res.revision, 7);
    trace.finish(201);
    const cause = causes.causeOf(7)!;
    assert.equal(cause.cause.traceId, TRACE);
    assert.equal(delivered, cause.cause.spanId);

    const spans = spanStore.trace(TRACE)!;
    assert.equal(spans.length, 5);
    const record = toTraceRecord(TRACE, spans);
    const byName = new Map(record.spans.map((s) => [s.name, s]));
    const request = byName.get('create configmaps')!;
    assert.equal(request.parentSpanId, PARENT);
    assert.equal(request.kind, 'server');
    assert.equal(request.component, 'kube-apiserver');
    assert.deepEqual(
      [request.hop, request.initiator, request.attributes['k8s.namespace.name'], request.attributes['k8s.user'], request.attributes['http.response.status_code']],
      ['request', 'client', 'a', 'alice', 201],
    );
    for (const name of ['authentication', 'admission Deny', 'validation', 'storage create']) assert.equal(byName.get(name)?.parentSpanId, request.spanId, name);
    assert.equal(byName.get('admission Deny')!.status, 'Error');
    assert.equal(byName.get('admission Deny')!.attributes['skiff.plugin'], 'Deny');
    assert.equal(byName.get('validation')!.statusMessage, 'spec: Required value');
    const storage = byName.get('storage create')!;
    assert.equal(storage.spanId, cause.cause.spanId, 'the write’s cause is its storage span');
    assert.equal(storage.attributes['k8s.resource_version'], '7');
    assert.ok(Math.abs(request.start - Date.now()) < 60_000, 'wall-clock times');
    assert.equal(spanStore.trace(TRACE)![0], spans[0], 'expanded once');
  });

  it('marks the request failed on a server error', () => {
    const trace = startRequestTrace(req('DELETE', '/api/v1/namespaces/a/pods/p'), new WriteCauses())!;
    trace.finish(500, new Error('storage is gone'));
    const request = toTraceRecord(trace.traceId, spanStore.trace(trace.traceId)!).spans[0];
    assert.equal(request.name, 'DELETE /api/v1/namespaces/a/pods/p');
    assert.equal(request.status, 'Error');
    assert.equal(request.statusMessage, 'storage is gone');
  });
});
