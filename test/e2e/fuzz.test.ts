import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RESOURCES } from '../../src/api/resources.js';
import { decodeProtobufObject } from '../../src/api/protobuf/decode-protobuf-object.js';
import { clientFromKubeconfig } from './raw-client.js';
import { removeDir, startServer, type ServerProcess } from './harness.js';

/** A small seeded PRNG so a failing run can be replayed with FUZZ_SEED. */
function prng(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32);
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 1500);

const VALID_BODIES: Record<string, unknown> = {
  ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } },
  Pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
  Deployment: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
  },
  Service: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } },
};

const CONTENT_TYPES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'text/plain',
  'application/json; charset=utf-8',
  '',
  ';;;=',
];
const ACCEPTS = ['application/json', 'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'text/html', '*/*', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', ',,,', ''];
const QUERY_KEYS = ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'timeoutSeconds', 'dryRun', 'gracePeriodSeconds', 'propagationPolicy', 'fieldManager', 'fieldValidation', 'watch', 'allowWatchBookmarks', 'includeObject', 'force'];
const QUERY_VALUES = ['', '0', '-1', '1', 'abc', 'a=b', 'a in (b', '!!', 'metadata.name=x', 'spec.bogus=1', 'All', 'true', 'Strict', 'Orphan', 'Bogus', '99999999999999999999', '%ZZ', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0', 'x'.repeat(300)];

function mutate(rnd: ReturnType<typeof prng>, value: unknown, depth = 0): unknown {
  if (depth > 6) return value;
  const junk = [null, 42, -1, 'str', true, [], {}, [1, 'a'], { $patch: 'delete' }, '__proto__', 1e308];
  if (rnd.chance(0.15)) return rnd.pick(junk);
  if (Array.isArray(value)) return value.map((v) => mutate(rnd, v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!rnd.chance(0.1)) out[k] = mutate(rnd, v, depth + 1);
    if (rnd.chance(0.2)) out[rnd.pick(['extra', 'kind', 'apiVersion', 'metadata', 'status', '__proto__'])] = rnd.pick(junk);
    return out;
  }
  return value;
}

function randomBody(rnd: ReturnType<typeof prng>): Buffer | undefined {
  const valid = JSON.stringify(mutate(rnd, rnd.pick(Object.values(VALID_BODIES))));
  switch (rnd.int(9)) {
    case 0:
      return undefined;
    case 1:
      return Buffer.from(Array.from({ length: rnd.int(200) }, () => rnd.int(256)));
    case 2:
      return Buffer.from(valid.slice(0, rnd.int(valid.length)));
    case 3:
      return Buffer.from(`k8s\0${String.fromCharCode(...Array.from({ length: rnd.int(64) }, () => rnd.int(256)))}`, 'latin1');
    case 4:
      return Buffer.from('a: [\n  - b: {c\n: ]]');
    case 5:
      return Buffer.from(JSON.stringify([{ op: rnd.pick(['add', 'remove', 'bogus']), path: rnd.pick(['/metadata/labels/x', '/spec', '', '/~2']), value: 1 }]));
    case 6:
      return rnd.chance(0.1) ? Buffer.alloc(3 * 1024 * 1024 + 10, 32) : Buffer.from(valid);
    default:
      return Buffer.from(valid);
  }
}

function randomPath(rnd: ReturnType<typeof prng>): string {
  const r = rnd.pick(RESOURCES);
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ns = rnd.pick(['fuzz', 'default', 'missing', 'UPPER', '']);
  const collection = r.namespaced && ns ? `${base}/namespaces/${ns}/${r.resource}` : `${base}/${r.resource}`;
  const name = rnd.pick(['cm', 'p', 'd', 's', 'missing', 'Bad_Name', 'a'.repeat(300), '%2e%2e', '']);
  const sub = rnd.pick(['', '', '', 'status', 'scale', 'binding', 'finalize', 'bogus', 'status/extra']);
  let path = name ? `${collection}/${name}${sub ? `/${sub}` : ''}` : collection;
  if (rnd.chance(0.05)) path = rnd.pick(['/api', '/apis', '/apis/apps', '/api/v2', '/apis/nope/v1/things', '/openapi/v3', '/version', '//', '/api/v1/namespaces/fuzz/pods/../../']);
  const q = Array.from({ length: rnd.int(4) }, () => `${rnd.pick(QUERY_KEYS)}=${encodeURIComponent(rnd.pick(QUERY_VALUES))}`);
  // a watch (watch=true, watch=1, …) must end on its own: the first timeoutSeconds wins, so it goes first
  if (q.some((p) => p.startsWith('watch='))) q.unshift('timeoutSeconds=1');
  return q.length ? `${path}?${q.join('&')}` : path;
}

describe('randomized bad input', () => {
  let server: ServerProcess;
  let client: ReturnType<typeof clientFromKubeconfig>;

  before(async () => {
    server = await startServer({ command: 'apiserver' });
    client = clientFromKubeconfig(server.kubeconfig, 8);
    await client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fuzz' } });
    for (const body of Object.values(VALID_BODIES)) {
      const kind = (body as { kind: string }).kind;
      const r = RESOURCES.find((x) => x.kind === kind && x.group !== 'events.k8s.io')!;
      const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
      const res = await client.request('POST', `${base}/namespaces/fuzz/${r.resource}`, body);
      assert.equal(res.status, 201, res.body);
    }
  });
  after(async () => {
    client?.close();
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  const currentRevision = async () => {
    const r = await client.request('GET', '/api/v1/namespaces?limit=1');
    return (JSON.parse(r.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  };

  it(`survives ${ITERATIONS} random requests (seed ${SEED}) and refused writes change nothing`, async () => {
    const rnd = prng(SEED);
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
    let refused = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const method = rnd.pick(methods);
      const path = randomPath(rnd);
      const headers: Record<string, string> = { Accept: rnd.pick(ACCEPTS) };
      const ct = rnd.pick(CONTENT_TYPES);
      if (ct) headers['Content-Type'] = ct;
      const body = method === 'GET' || method === 'HEAD' ? undefined : randomBody(rnd);
      const before = await currentRevision();
      const res = await client.send(method, path, body, headers).catch((err: unknown) => {
        throw new Error(`request ${i} (${method} ${path}) got no answer: ${String(err)}`);
      });
      const what = `#${i} ${method} ${path} (${ct}) -> ${res.status} ${res.body.slice(0, 300)}`;
      // 504 Timeout is upstream's answer to a resourceVersion from the future; any other 5xx is a bug
      const tooNew = res.status === 504 && /"reason":"Timeout"/.test(res.body);
      assert.ok(res.status > 0 && (res.status < 500 || tooNew), `server error: ${what}`);
      if (res.status >= 400 && method !== 'HEAD') {
        refused++;
        // a client that prefers protobuf gets its Status as protobuf, as upstream's
        const protobuf = String(res.headers['content-type']).startsWith('application/vnd.kubernetes.protobuf');
        const status = (protobuf ? decodeProtobufObject(res.bytes) : JSON.parse(res.body)) as { kind: string; code: number; status: string; message: string };
        assert.equal(status.kind, 'Status', what);
        assert.equal(status.code, res.status, what);
        assert.equal(status.status, 'Failure', what);
        assert.ok(status.message, what);
        assert.equal(await currentRevision(), before, `a refused request changed the store: ${what}`);
      }
    }
    assert.ok(refused > ITERATIONS / 4, `most random requests should be refused (${refused})`);
    const health = await client.send('GET', '/healthz', undefined, {});
    assert.equal(health.status, 200);
  });
});
