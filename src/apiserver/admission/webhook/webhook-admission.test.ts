import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import type { ConfigMap, Service } from 'kubernetes-types/core/v1.js';
import { CONFIG_MAPS, builtinResource } from '../../../api/resource-refs.js';
import { generateCertificateAuthority, issueCertificate } from '../../pki/issue-certificate.js';
import { startTestApiServer, type TestApiServer } from '../../../testing/test-api-server.js';

const MUTATING = builtinResource('mutatingwebhookconfigurations', 'admissionregistration.k8s.io');
const VALIDATING = builtinResource('validatingwebhookconfigurations', 'admissionregistration.k8s.io');

interface Review {
  request: { uid: string; operation: string; object?: ConfigMap; kind: { kind: string }; userInfo: { username: string } };
}

type Handler = (review: Review) => Record<string, unknown> | 'garbage' | 'hang';

/** A webhook server on loopback with its own CA; `handlers` answer by path. */
async function webhookServer(handlers: Record<string, Handler>) {
  const ca = await generateCertificateAuthority('webhook-test-ca');
  const serving = await issueCertificate(ca, { commonName: 'hooks', hosts: ['127.0.0.1', 'localhost', 'hooks.default.svc'], usages: ['serverAuth'] });
  const seen: { path: string; review: Review }[] = [];
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      const review = JSON.parse(Buffer.concat(chunks).toString()) as Review;
      seen.push({ path, review });
      const answer = handlers[path]?.(review) ?? { allowed: true };
      if (answer === 'hang') return;
      res.setHeader('Content-Type', 'application/json');
      if (answer === 'garbage') return void res.end('not json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...answer } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    port,
    url: (path: string) => `https://127.0.0.1:${port}${path}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function hook(name: string, clientConfig: object, extra: object = {}) {
  return {
    name,
    clientConfig,
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

const patch = (ops: object[]) => Buffer.from(JSON.stringify(ops)).toString('base64');

describe('admission webhooks', () => {
  let api: TestApiServer;
  let hooks: Awaited<ReturnType<typeof webhookServer>>;
  before(async () => {
    api = await startTestApiServer({ namespaces: ['hooked', 'plain'] });
    hooks = await webhookServer({
      '/label': () => ({ allowed: true, patchType: 'JSONPatch', patch: patch([{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }]), warnings: ['labelled by a webhook'] }),
      '/deny': (r) => (r.request.object?.data?.forbidden ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'forbidden key present' } } : { allowed: true }),
      '/garbage': () => 'garbage',
      '/hang': () => 'hang',
    });
    await api.client.resource(builtinResource('namespaces')).patch('hooked', { metadata: { labels: { webhooks: 'on' } } }, 'merge');
  });
  after(async () => {
    await hooks.close();
    await api.stop();
  });

  async function until(check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not met in 10 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('a mutating webhook patches the object, selected by namespace; its warnings reach the client', async () => {
    await api.client.resource<MutatingWebhookConfiguration>(MUTATING).create({
      metadata: { name: 'label' },
      webhooks: [hook('label.example.com', { url: hooks.url('/label'), caBundle: hooks.caBundle }, { namespaceSelector: { matchLabels: { webhooks: 'on' } } })],
    });
    const cms = api.client.resource<ConfigMap>(CONFIG_MAPS);
    await until(async () => {
      const made = await cms.namespace('hooked').create({ metadata: { generateName: 'probe-' } });
      return made.metadata?.labels?.mutated === 'yes';
    });
    const plain = await cms.namespace('plain').create({ metadata: { name: 'untouched' } });
    assert.equal(plain.metadata?.labels?.mutated, undefined);
    const last = hooks.seen.at(-1)!;
    assert.equal(last.path, '/label');
    assert.equal(last.review.request.operation, 'CREATE');
    assert.equal(last.review.request.kind.kind, 'ConfigMap');
    await api.client.resource(MUTATING).delete('label');
  });

  it("a validating webhook's denial is upstream's message and code", async () => {
    await api.client.resource<ValidatingWebhookConfiguration>(VALIDATING).create({ metadata: { name: 'deny' }, webhooks: [hook('deny.example.com', { url: hooks.url('/deny'), caBundle: hooks.caBundle })] });
    const cms = api.client.resource<ConfigMap>(CONFIG_MAPS).namespace('plain');
    await until(async () => {
      try {
        await cms.create({ metadata: { generateName: 'bad-' }, data: { forbidden: 'x' } });
        return false;
      } catch (err) {
        const e = err as Error & { code?: number };
        assert.equal(e.code, 403);
        assert.match(e.message, /admission webhook "deny\.example\.com" denied the request: forbidden key present/);
        return true;
      }
    });
    await cms.create({ metadata: { name: 'fine' }, data: { ok: 'y' } });
    await api.client.resource(VALIDATING).delete('deny');
  });

  it('a webhook that answers garbage fails the request under Fail and is skipped under Ignore', async () => {
    await api.client.resource<ValidatingWebhookConfiguration>(VALIDATING).create({
      metadata: { name: 'broken' },
      webhooks: [hook('garbage.example.com', { url: hooks.url('/garbage'), caBundle: hooks.caBundle }, { objectSelector: { matchLabels: { probe: 'garbage' } } })],
    });
    const cms = api.client.resource<ConfigMap>(CONFIG_MAPS).namespace('plain');
    await until(async () => {
      try {
        await cms.create({ metadata: { generateName: 'g-', labels: { probe: 'garbage' } } });
        return false;
      } catch (err) {
        const e = err as Error & { code?: number };
        assert.equal(e.code, 500);
        assert.match(e.message, /^Internal error occurred: failed calling webhook "garbage\.example\.com": failed to call webhook: /);
        return true;
      }
    });
    await api.client.resource(VALIDATING).patch('broken', [{ op: 'replace', path: '/webhooks/0/failurePolicy', value: 'Ignore' }], 'json');
    await until(async () => Boolean(await cms.create({ metadata: { generateName: 'g-', labels: { probe: 'garbage' } } }).catch(() => undefined)));
    await api.client.resource(VALIDATING).delete('broken');
  });

  it('an unknown CA fails the TLS handshake; timeouts follow timeoutSeconds', async () => {
    await api.client.resource<ValidatingWebhookConfiguration>(VALIDATING).create({
      metadata: { name: 'tls' },
      webhooks: [
        hook('noca.example.com', { url: hooks.url('/deny') }, { objectSelector: { matchLabels: { probe: 'noca' } } }),
        hook('slow.example.com', { url: hooks.url('/hang'), caBundle: hooks.caBundle }, { timeoutSeconds: 1, objectSelector: { matchLabels: { probe: 'slow' } } }),
      ],
    });
    const cms = api.client.resource<ConfigMap>(CONFIG_MAPS).namespace('plain');
    const failure = async (probe: string) => {
      let message = '';
      await until(async () => {
        message = await cms.create({ metadata: { generateName: 'p-', labels: { probe } } }).then(
          () => '',
          (e: Error) => e.message,
        );
        return message !== '';
      });
      return message;
    };
    assert.match(await failure('noca'), /failed calling webhook "noca\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/deny\?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority/);
    assert.match(await failure('slow'), /failed calling webhook "slow\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/hang\?timeout=1s": context deadline exceeded/);
    await api.client.resource(VALIDATING).delete('tls');
  });

  it('a service reference is reached through the Service (ExternalName here) with the name <svc>.<ns>.svc; IfNeeded reinvokes once', async () => {
    await api.client.resource<Service>(builtinResource('services')).namespace('default').create({ metadata: { name: 'hooks' }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ port: hooks.port }] } });
    const service = (path: string) => ({ service: { namespace: 'default', name: 'hooks', path, port: hooks.port }, caBundle: hooks.caBundle });
    const selector = { objectSelector: { matchLabels: { probe: 'svc' } } };
    await api.client.resource<MutatingWebhookConfiguration>(MUTATING).create({
      metadata: { name: 'svc' },
      // a-first sees the object before b-second changes it, so it is called again
      webhooks: [hook('a-first.example.com', service('/count'), { ...selector, reinvocationPolicy: 'IfNeeded' }), hook('b-second.example.com', service('/label'), selector)],
    });
    const before = hooks.seen.length;
    const cms = api.client.resource<ConfigMap>(CONFIG_MAPS).namespace('plain');
    await until(async () => (await cms.create({ metadata: { generateName: 's-', labels: { probe: 'svc' } } })).metadata?.labels?.mutated === 'yes');
    const calls = hooks.seen.slice(before).map((s) => s.path);
    // the last create: /count, /label, then /count again
    assert.deepEqual(calls.slice(-3), ['/count', '/label', '/count']);
    await api.client.resource(MUTATING).delete('svc');
  });

  it('matchConditions (CEL) decide whether the webhook is called', async () => {
    await api.client.resource<ValidatingWebhookConfiguration>(VALIDATING).create({
      metadata: { name: 'conditions' },
      webhooks: [
        hook('cond.example.com', { url: hooks.url('/deny'), caBundle: hooks.caBundle }, {
          matchConditions: [{ name: 'only-guarded', expression: "has(object.metadata.labels) && 'guarded' in object.metadata.labels" }],
        }),
      ],
    });
    const cms = api.client.resource<ConfigMap>(CONFIG_MAPS).namespace('plain');
    await until(async () =>
      cms.create({ metadata: { generateName: 'c-', labels: { guarded: 'y' } }, data: { forbidden: 'x' } }).then(
        () => false,
        (e: Error) => /admission webhook "cond\.example\.com" denied the request/.test(e.message),
      ),
    );
    // the condition is false: the webhook is not asked, the ConfigMap is created
    await cms.create({ metadata: { generateName: 'c-' }, data: { forbidden: 'x' } });
    await api.client.resource(VALIDATING).delete('conditions');
  });
});
