import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Ingress, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { setNetworkPolicyDefaults } from '../defaults/networking.js';
import { validateIngress, validateIngressClass, validateIngressClassUpdate, validateNetworkPolicy } from './networking.js';

const meta = { name: 'np', namespace: 'default' };
const messages = (errs: { field: string; detail?: string; type?: string }[]) => errs.map((e) => `${e.field}: ${e.type ?? ''} ${e.detail ?? ''}`.trim());

describe('networking.k8s.io validation', () => {
  it('accepts argo-cd-like NetworkPolicies and defaults their policyTypes and protocols', () => {
    const np: NetworkPolicy = {
      metadata: meta,
      spec: {
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'argocd-server' } },
        ingress: [{ from: [{ namespaceSelector: {} }, { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 8080 }, { port: 'metrics' }, { port: 32000, endPort: 32768 }] }],
        egress: [{ to: [{ podSelector: {} }] }],
      },
    };
    setNetworkPolicyDefaults(np);
    assert.deepEqual(np.spec!.policyTypes, ['Ingress', 'Egress']);
    assert.equal(np.spec!.ingress![0].ports![0].protocol, 'TCP');
    assert.deepEqual(validateNetworkPolicy(np), []);
  });

  it('rejects bad peers, ports, CIDRs and policy types with upstream\'s messages', () => {
    const np: NetworkPolicy = {
      metadata: meta,
      spec: {
        podSelector: { matchLabels: { 'bad key!': 'x' } },
        ingress: [{ from: [{}, { ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16'] }, podSelector: {} }], ports: [{ protocol: 'ICMP', port: 70000 }, { port: 'http', endPort: 90 }] }],
        policyTypes: ['Ingress', 'Sideways'],
      },
    };
    const errs = validateNetworkPolicy(np);
    const fields = errs.map((e) => e.field);
    assert.ok(fields.some((f) => f.startsWith('spec.podSelector.matchLabels')));
    assert.ok(fields.includes('spec.ingress[0].from[0]'));
    assert.ok(fields.includes('spec.ingress[0].from[1].ipBlock.except[0]'));
    assert.ok(fields.includes('spec.ingress[0].from[1]'));
    assert.ok(fields.includes('spec.ingress[0].ports[0].protocol'));
    assert.ok(fields.includes('spec.ingress[0].ports[0].port'));
    assert.ok(fields.includes('spec.ingress[0].ports[1].endPort'));
    assert.ok(fields.includes('spec.policyTypes[1]'));
    const text = messages(errs).join('\n');
    assert.match(text, /must specify a peer/);
    assert.match(text, /must be a strict subset of `cidr`/);
    assert.match(text, /may not specify both ipBlock and another peer/);
    assert.match(text, /may not be specified when `port` is non-numeric/);
  });

  it('validates Ingress paths, backends and hosts', () => {
    const ok: Ingress = { metadata: meta, spec: { ingressClassName: 'nginx', rules: [{ host: '*.example.com', http: { paths: [{ path: '/api', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] } };
    assert.deepEqual(validateIngress(ok), []);
    const bad: Ingress = { metadata: meta, spec: { rules: [{ host: 'a*.b', http: { paths: [{ path: 'api', pathType: 'Exact', backend: { service: { name: 'web', port: {} } } }, { backend: {} } as never] } }] } };
    const text = messages(validateIngress(bad)).join('\n');
    assert.match(text, /spec\.rules\[0\]\.http\.paths\[0\]\.path: .*must be an absolute path/);
    assert.match(text, /port name or number is required/);
    assert.match(text, /spec\.rules\[0\]\.http\.paths\[1\]\.pathType: .*pathType must be specified/);
    assert.match(text, /wildcard/);
    assert.match(messages(validateIngress({ metadata: meta, spec: {} })).join(), /either `defaultBackend` or `rules` must be specified/);
  });

  it('validates IngressClass controllers and keeps them immutable', () => {
    const ic = { metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } };
    assert.deepEqual(validateIngressClass(ic), []);
    assert.equal(validateIngressClass({ metadata: { name: 'x' }, spec: {} })[0].field, 'spec.controller');
    assert.equal(validateIngressClassUpdate({ ...ic, spec: { controller: 'example.com/other' } }, ic)[0].field, 'spec.controller');
  });
});
