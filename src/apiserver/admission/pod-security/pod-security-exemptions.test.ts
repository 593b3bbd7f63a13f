import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { KubeObject } from '../../../api/object.js';
import { ApiError, notFound } from '../../../machinery/api-error.js';
import type { RegistryStore } from '../../registry/registry-store.js';
import type { AdmissionAttributes } from '../admission.js';
import { AdmissionConfigError, loadAdmissionConfiguration } from '../admission-configuration.js';
import { v1 } from './levels.js';
import { PodSecurity } from './pod-security.js';
import { parsePodSecurityConfiguration, PodSecurityConfigError } from './pod-security-configuration.js';

const dir = mkdtempSync(join(tmpdir(), 'skiff-psa-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const namespaces: Record<string, KubeObject> = {};
const pods: KubeObject[] = [];
const stores = {
  namespaces: () => ({ getShared: async (_: string, name: string) => namespaces[name] ?? Promise.reject(notFound({ group: '', resource: 'namespaces' }, name)) }) as unknown as RegistryStore,
  pods: () => ({ list: async (ns: string) => ({ items: pods.filter((p) => p.metadata?.namespace === ns) }) }) as unknown as RegistryStore,
};

const CONFIG = {
  apiVersion: 'pod-security.admission.config.k8s.io/v1',
  kind: 'PodSecurityConfiguration',
  defaults: { enforce: 'baseline', 'enforce-version': 'v1.30', warn: 'restricted' },
  exemptions: { usernames: ['system:serviceaccount:kube-system:replicaset-controller', 'ops'], runtimeClasses: ['kata'], namespaces: ['kube-system'] },
};
const plugin = new PodSecurity(stores, parsePodSecurityConfiguration(CONFIG));

function ns(name: string, labels: Record<string, string> = {}): KubeObject {
  return (namespaces[name] = { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
}

const privilegedPod = (name: string, namespace: string, runtimeClassName?: string): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { runtimeClassName, containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] } }) as KubeObject;

function attrs(resource: string, object: KubeObject, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes & { warnings: string[]; annotations: Record<string, string> } {
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  const [group, res] = resource.includes('/') ? resource.split('/') : ['', resource];
  return {
    operation: 'CREATE', kind: { group, version: 'v1', kind: '' }, resource: { group, version: 'v1', resource: res }, subresource: '',
    namespace: object.metadata?.namespace ?? object.metadata?.name ?? '', name: object.metadata?.name ?? '', object, dryRun: false, user: { name: 'jane', groups: [] },
    warn: (w) => warnings.push(w), addAuditAnnotation: (k, v) => (annotations[k] = v), warnings, annotations, ...over,
  };
}

async function refused(a: AdmissionAttributes): Promise<ApiError> {
  try {
    await plugin.validate(a);
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
  assert.fail('admitted');
}

describe('PodSecurityConfiguration', () => {
  it('parses defaults (each mode privileged:latest unless set) and exemptions', () => {
    const c = parsePodSecurityConfiguration(CONFIG);
    assert.deepEqual(c.defaults, { enforce: { level: 'baseline', version: v1(30) }, audit: { level: 'privileged', version: { latest: true } }, warn: { level: 'restricted', version: { latest: true } } });
    assert.deepEqual(c.exemptions.namespaces, ['kube-system']);
    const empty = parsePodSecurityConfiguration({ apiVersion: 'pod-security.admission.config.k8s.io/v1beta1', kind: 'PodSecurityConfiguration' });
    assert.deepEqual(empty.exemptions, { usernames: [], runtimeClasses: [], namespaces: [] });
    assert.equal(empty.defaults.enforce.level, 'privileged');
  });

  it('refuses bad levels, versions, names, empty usernames, duplicates and other kinds', () => {
    assert.throws(
      () => parsePodSecurityConfiguration({ ...CONFIG, defaults: { enforce: 'strict', 'audit-version': '1.2' } }),
      (e: Error) => e instanceof PodSecurityConfigError && e.message === 'defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted, defaults.audit-version: Invalid value: "1.2": must be "latest" or "v1.x"',
    );
    assert.throws(
      () => parsePodSecurityConfiguration({ ...CONFIG, exemptions: { namespaces: ['Kube_System', 'a', 'a'], usernames: [''], runtimeClasses: ['ok.class'] } }),
      (e: Error) =>
        /exemptions\.namespaces\[0\]: Invalid value: "Kube_System": /.test(e.message) &&
        /exemptions\.namespaces\[2\]: Duplicate value: "a"/.test(e.message) &&
        /exemptions\.usernames\[0\]: Invalid value: "": username must not be empty/.test(e.message),
    );
    assert.throws(() => parsePodSecurityConfiguration({ apiVersion: 'v1', kind: 'ConfigMap' }), /want kind PodSecurityConfiguration/);
  });

  it('is read from an AdmissionConfiguration, inline or by a path relative to it', () => {
    writeFileSync(join(dir, 'psa.yaml'), JSON.stringify(CONFIG));
    writeFileSync(join(dir, 'admission.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: psa.yaml\n- name: Other\n  configuration: {a: 1}\n');
    const plugins = loadAdmissionConfiguration(join(dir, 'admission.yaml'));
    assert.deepEqual(plugins.get('PodSecurity'), CONFIG);
    assert.deepEqual(plugins.get('Other'), { a: 1 });
    writeFileSync(join(dir, 'bad.yaml'), 'apiVersion: v1\nkind: Config\n');
    assert.throws(() => loadAdmissionConfiguration(join(dir, 'bad.yaml')), AdmissionConfigError);
    assert.throws(() => loadAdmissionConfiguration(join(dir, 'missing.yaml')), /cannot read/);
  });
});

describe('PodSecurity with a configuration', () => {
  it('the defaults apply to an unlabelled namespace; labels still override them', async () => {
    ns('plain');
    const err = await refused(attrs('pods', privilegedPod('p', 'plain')));
    assert.match(err.message, /violates PodSecurity "baseline:v1.30": privileged/);
    ns('opened', { 'pod-security.kubernetes.io/enforce': 'privileged', 'pod-security.kubernetes.io/warn': 'privileged' });
    const a = attrs('pods', privilegedPod('p', 'opened'));
    await plugin.validate(a);
    assert.deepEqual(a.warnings, []);
  });

  it('exempt namespaces, usernames and runtime classes are not evaluated, and say why in the audit annotation', async () => {
    ns('kube-system', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    ns('secure', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    const byNamespace = attrs('pods', privilegedPod('p', 'kube-system'));
    await plugin.validate(byNamespace);
    assert.deepEqual(byNamespace.annotations, { 'pod-security.kubernetes.io/exempt': 'namespace' });
    const byUser = attrs('pods', privilegedPod('p', 'secure'), { user: { name: 'ops', groups: [] } });
    await plugin.validate(byUser);
    assert.deepEqual(byUser.annotations, { 'pod-security.kubernetes.io/exempt': 'user' });
    const byRuntimeClass = attrs('pods', privilegedPod('p', 'secure', 'kata'));
    await plugin.validate(byRuntimeClass);
    assert.deepEqual(byRuntimeClass.annotations, { 'pod-security.kubernetes.io/exempt': 'runtimeClass' });
    // a workload by an exempt user: no warnings either
    const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'secure' }, spec: { template: { spec: (privilegedPod('t', 'secure') as { spec: unknown }).spec } } } as KubeObject;
    const workload = attrs('apps/deployments', deploy, { user: { name: 'ops', groups: [] } });
    await plugin.validate(workload);
    assert.deepEqual(workload.warnings, []);
    // the rest are still refused
    assert.equal((await refused(attrs('pods', privilegedPod('p', 'secure', 'runc')))).code, 403);
    assert.equal((await refused(attrs('pods', privilegedPod('p', 'secure'), { user: { name: 'system:serviceaccount:kube-system:deployment-controller', groups: [] } }))).code, 403);
  });

  it('labelling an exempt namespace above privileged warns that the policy is ignored', async () => {
    const create = attrs('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system', labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/audit': 'baseline' } } });
    await plugin.validate(create);
    assert.deepEqual(create.warnings, ['namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:v1.30, audit=baseline:latest) will be ignored']);
    // (the level from the label, the version from the defaults) tightening it: the same warning, and its existing pods are not checked
    pods.push(privilegedPod('old', 'kube-system'));
    const old = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system', labels: {} } } as KubeObject;
    const next = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } } as KubeObject;
    const update = attrs('namespaces', next, { operation: 'UPDATE', oldObject: old });
    await plugin.validate(update);
    assert.deepEqual(update.warnings, ['namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:v1.30) will be ignored']);
    // no labels: the defaults, nothing to warn about
    const plain = attrs('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } });
    await plugin.validate(plain);
    assert.deepEqual(plain.warnings, []);
  });

  it('existing pods of an exempt runtime class are skipped when a namespace tightens', async () => {
    pods.push(privilegedPod('sandboxed', 'tight', 'kata'), privilegedPod('plain', 'tight'));
    const old = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tight', labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } } as KubeObject;
    const next = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tight', labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } } as KubeObject;
    const a = attrs('namespaces', next, { operation: 'UPDATE', oldObject: old });
    await plugin.validate(a);
    assert.deepEqual(a.warnings, ['existing pods in namespace "tight" violate the new PodSecurity enforce level "baseline:v1.30"', 'plain: privileged']);
  });
});
