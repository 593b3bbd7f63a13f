import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { ObjectTrace } from '../../trace/journey.js';
import { configureTracing } from '../../trace/tracing.js';
import type { Authorizer } from '../authorization/authorizer.js';
import { startInProcessServer, type InProcessServer } from '../in-process-server.test-util.js';

await configureTracing({ samplingRatio: 1 });

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

/** Everything for the admin; only `get configmaps/visible` for the user "viewer". */
const viewerAuthorizer: Authorizer = {
  name: 'test',
  async authorize(attrs) {
    if (attrs.user.name !== 'viewer') return { decision: 'Allow', reason: '' };
    return attrs.resource === 'configmaps' && attrs.verb === 'get' && attrs.name === 'visible' ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
  },
};

describe('tracing in the API server', () => {
  let s: InProcessServer;
  before(async () => {
    s = await startInProcessServer({ pipeline: { authorizers: () => [viewerAuthorizer] } });
  });
  after(() => s.stop());

  const create = (name: string, headers: Record<string, string> = {}) =>
    s.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name }, data: { a: '1' } }, headers });
  const traceOf = async (name: string) => {
    const r = await s.request('GET', `/apis/trace.skiff.dev/v1/namespaces/default/configmaps/${name}`);
    assert.equal(r.status, 200, r.text);
    return r.json() as unknown as ObjectTrace;
  };

  it('joins the caller’s trace and records every stage, the storage commit with its resourceVersion', async () => {
    const r = await create('joined', { traceparent: `00-${TRACE}-${PARENT}-01` });
    assert.equal(r.status, 201, r.text);
    const rv = (r.json().metadata as { resourceVersion: string }).resourceVersion;
    const t = await traceOf('joined');
    assert.deepEqual(t.writes.map((w) => [w.resourceVersion, w.verb, w.traceId]), [[rv, 'create', TRACE]]);
    assert.equal(t.traces.length, 1);
    const spans = t.traces[0].spans;
    const request = spans.find((x) => x.hop === 'request')!;
    assert.equal(request.parentSpanId, PARENT, 'the request span is the child of the caller’s span');
    assert.equal(request.name, 'create configmaps');
    assert.equal(request.initiator, 'client');
    assert.equal(request.component, 'kube-apiserver');
    for (const hop of ['authentication', 'authorization', 'admission', 'validation', 'storage']) {
      const stage = spans.find((x) => x.hop === hop);
      assert.ok(stage, `a ${hop} span`);
      assert.equal(stage.parentSpanId, request.spanId, `${hop} is a stage of the request`);
    }
    const storage = spans.find((x) => x.hop === 'storage')!;
    assert.equal(storage.attributes['k8s.resource_version'], rv);
    assert.equal(t.writes[0].spanId, storage.spanId, 'the write’s cause is its storage commit');
    assert.deepEqual(t.traces[0].criticalPath[0], request.spanId);
  });

  it('starts a new trace for a malformed traceparent instead of failing the request', async () => {
    for (const [i, bad] of ['garbage', `00-${'0'.repeat(32)}-${PARENT}-01`, `00-${TRACE}-${PARENT}`].entries()) {
      const r = await create(`malformed-${i}`, { traceparent: bad });
      assert.equal(r.status, 201, r.text);
      const t = await traceOf(`malformed-${i}`);
      const request = t.traces[0].spans.find((x) => x.hop === 'request')!;
      assert.equal(request.parentSpanId, undefined);
      assert.notEqual(request.traceId, TRACE);
    }
  });

  it('says so when an object has no trace', async () => {
    const t = await traceOf('never-written');
    assert.deepEqual(t.traces, []);
    assert.match(t.message ?? '', /no trace recorded for configmaps "never-written" in namespace "default"/);
  });

  it('resolves kinds and short names, answers 404 for unknown resources and 400 for the wrong scope', async () => {
    assert.equal((await s.request('GET', '/apis/trace.skiff.dev/v1/namespaces/default/cm/joined')).status, 200);
    assert.equal((await s.request('GET', '/apis/trace.skiff.dev/v1/namespaces/default/ConfigMap/joined')).status, 200);
    assert.equal((await s.request('GET', '/apis/trace.skiff.dev/v1/namespaces/default/widgets/x')).status, 404);
    assert.equal((await s.request('GET', '/apis/trace.skiff.dev/v1/configmaps/joined')).status, 400);
    assert.equal((await s.request('GET', '/apis/trace.skiff.dev/v1/nodes/n1')).status, 200);
  });

  it('shows a user only the traces of objects they may get', async () => {
    await create('visible', { traceparent: `00-${TRACE}-${PARENT}-01` });
    const viewer = await s.clientCertificate('viewer');
    const ok = await s.request('GET', '/apis/trace.skiff.dev/v1/namespaces/default/configmaps/visible', { client: viewer });
    assert.equal(ok.status, 200, ok.text);
    const denied = await s.request('GET', '/apis/trace.skiff.dev/v1/namespaces/default/configmaps/joined', { client: viewer });
    assert.equal(denied.status, 403, denied.text);
    assert.match(denied.text, /cannot get resource \\?"configmaps\\?"/);
    const anonymous = await s.request('GET', '/apis/trace.skiff.dev/v1/namespaces/default/configmaps/joined', { client: null });
    assert.ok([401, 403].includes(anonymous.status));
  });

  it('answers OTLP/JSON with ?format=otlp', async () => {
    const r = await s.request('GET', '/apis/trace.skiff.dev/v1/namespaces/default/configmaps/joined?format=otlp');
    assert.equal(r.status, 200);
    const body = r.json() as { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: { traceId: string }[] }[] }[] };
    const services = body.resourceSpans.map((rs) => rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue);
    assert.deepEqual(services, ['kube-apiserver']);
    assert.ok(body.resourceSpans[0].scopeSpans[0].spans.length >= 5);
  });

  it('tells only watchers that ask which span caused each event', async () => {
    // watching from the current resourceVersion replays the write however late each watch registers
    const list = await s.request('GET', '/api/v1/namespaces/default/configmaps');
    const from = (list.json().metadata as { resourceVersion: string }).resourceVersion;
    const watch = (headers: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        const req = https.request(
          { host: '127.0.0.1', port: s.port, path: `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${from}&fieldSelector=metadata.name%3Dwatched`, headers, ...s.tlsOptions() },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => {
              text += c;
              if (text.includes('\n')) {
                req.destroy();
                resolve(text.split('\n')[0]);
              }
            });
          },
        );
        req.on('error', reject);
        req.end();
      });
    const plain = watch({});
    const asking = watch({ 'X-Skiff-Watch-Causes': 'true' });
    await create('watched', { traceparent: `00-${TRACE}-${PARENT}-01` });
    const [plainLine, askingLine] = await Promise.all([plain, asking]);
    assert.equal((JSON.parse(plainLine) as Record<string, unknown>).cause, undefined);
    const event = JSON.parse(askingLine) as { type: string; cause: { traceparent: string; committed: string } };
    assert.equal(event.type, 'ADDED');
    const t = await traceOf('watched');
    assert.equal(event.cause.traceparent, `00-${TRACE}-${t.writes[0].spanId}-01`);
    assert.ok(Date.parse(event.cause.committed) > 0);
  });

  it('tells only lists that ask which span caused each listed version', async () => {
    await create('listed', { traceparent: `00-${TRACE}-${PARENT}-01` });
    const path = '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dlisted';
    const plain = (await s.request('GET', path)).json();
    assert.equal(plain.causes, undefined);
    const asking = (await s.request('GET', path, { headers: { 'X-Skiff-Watch-Causes': 'true' } })).json() as { items: { metadata: { resourceVersion: string } }[]; causes: Record<string, { traceparent: string }> };
    const rv = asking.items[0].metadata.resourceVersion;
    const t = await traceOf('listed');
    assert.equal(asking.causes[rv].traceparent, `00-${TRACE}-${t.writes[0].spanId}-01`);
  });
});
