import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../api/object.js';
import { ApiError, notFound } from '../../../machinery/api-error.js';
import type { RegistryStore } from '../../registry/registry-store.js';
import type { AdmissionAttributes } from '../admission.js';
import { policyToEvaluate, v1 } from './levels.js';
import { PodSecurity } from './pod-security.js';

const namespaces: Record<string, KubeObject> = {};
const pods: KubeObject[] = [];
const plugin = new PodSecurity({
  namespaces: () => ({ getShared: async (_: string, name: string) => namespaces[name] ?? Promise.reject(notFound({ group: '', resource: 'namespaces' }, name)) }) as unknown as RegistryStore,
  pods: () => ({ list: async (ns: string) => ({ items: pods.filter((p) => p.metadata?.namespace === ns) }) }) as unknown as RegistryStore,
});

function ns(name: string, labels: Record<string, string>): KubeObject {
  return (namespaces[name] = { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
}

const privilegedPod = (name: string, namespace = 'secure'): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] } }) as KubeObject;

function attrs(resource: string, object: KubeObject, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes & { warnings: string[] } {
  const warnings: string[] = [];
  const [group, res] = resource.includes('/') ? resource.split('/') : ['', resource];
  return {
    operation: 'CREATE', kind: { group, version: 'v1', kind: '' }, resource: { group, version: 'v1', resource: res }, subresource: '',
    namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '', object, dryRun: false, user: { name: 'jane', groups: [] },
    warn: (w) => warnings.push(w), warnings, ...over,
  };
}

async function refusal(a: AdmissionAttributes): Promise<ApiError> {
  try {
    await plugin.validate(a);
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
  assert.fail('admitted');
}

describe('policyToEvaluate', () => {
  it('reads level and version labels; warn follows a stricter enforce; bad labels are errors with upstream fallbacks', () => {
    const { policy } = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.24', 'pod-security.kubernetes.io/audit': 'restricted' });
    assert.deepEqual(policy.enforce, { level: 'baseline', version: v1(24) });
    assert.deepEqual(policy.warn, { level: 'baseline', version: v1(24) });
    assert.equal(policy.audit.level, 'restricted');
    const bad = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'strict', 'pod-security.kubernetes.io/warn-version': '1.2' });
    assert.equal(bad.policy.enforce.level, 'restricted');
    assert.equal(bad.policy.warn.level, 'privileged');
    assert.deepEqual(bad.errors.map((e) => e.field), ['metadata.labels[pod-security.kubernetes.io/enforce]', 'metadata.labels[pod-security.kubernetes.io/warn-version]']);
  });
});

describe('PodSecurity admission', () => {
  it('enforce: a privileged pod in a restricted namespace is 403 with upstream message', async () => {
    ns('secure', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    const err = await refusal(attrs('pods', privilegedPod('x')));
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.match(err.message, /^pods "x" is forbidden: violates PodSecurity "restricted:latest": privileged \(container "c" must not set securityContext\.privileged=true\), allowPrivilegeEscalation != false/);
  });

  it('warn: admits with a "would violate" warning; enforce+warn at one level warns nothing extra when allowed', async () => {
    ns('warned', { 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/warn-version': 'v1.30' });
    const a = attrs('pods', privilegedPod('y', 'warned'));
    await plugin.validate(a);
    assert.deepEqual(a.warnings, ['would violate PodSecurity "baseline:v1.30": privileged (container "c" must not set securityContext.privileged=true)']);
  });

  it('workloads are checked for warn/audit only, never enforced', async () => {
    ns('secure', { 'pod-security.kubernetes.io/enforce': 'baseline' });
    const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'secure' }, spec: { template: { spec: (privilegedPod('t') as { spec: unknown }).spec } } } as KubeObject;
    const a = attrs('apps/deployments', deploy);
    await plugin.validate(a);
    assert.deepEqual(a.warnings, ['would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)']);
  });

  it('pod updates that change nothing checked, status and other subresources are not evaluated', async () => {
    ns('secure', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    const pod = privilegedPod('z');
    await plugin.validate(attrs('pods', pod, { operation: 'UPDATE', oldObject: structuredClone(pod) }));
    await plugin.validate(attrs('pods', pod, { subresource: 'status' }));
    const newer = structuredClone(pod) as { spec: { containers: { image: string }[] } } & KubeObject;
    newer.spec.containers[0].image = 'busybox:2';
    assert.equal((await refusal(attrs('pods', newer, { operation: 'UPDATE', oldObject: pod }))).code, 403);
  });

  it('unlabelled namespaces admit anything', async () => {
    ns('open', {});
    const a = attrs('pods', privilegedPod('p', 'open'));
    await plugin.validate(a);
    assert.deepEqual(a.warnings, []);
  });

  it('namespace labels are validated (422); tightening enforce warns about existing pods', async () => {
    const bad = await refusal(attrs('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', labels: { 'pod-security.kubernetes.io/enforce': 'strict' } } }));
    assert.equal(bad.code, 422);
    assert.equal(bad.message, 'Namespace "n" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');
    pods.push(privilegedPod('a', 'n'), privilegedPod('b', 'n'), { metadata: { name: 'fine', namespace: 'n' }, spec: { containers: [{ name: 'c' }] } } as KubeObject);
    const old = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', labels: {} } } as KubeObject;
    const next = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } } as KubeObject;
    const a = attrs('namespaces', next, { operation: 'UPDATE', oldObject: old });
    await plugin.validate(a);
    assert.deepEqual(a.warnings, ['existing pods in namespace "n" violate the new PodSecurity enforce level "baseline:latest"', 'a (and 1 other pod): privileged']);
  });
});
