import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Container, LimitRange, LimitRangeItem, Pod } from 'kubernetes-types/core/v1.js';
import { setLimitRangeDefaults } from '../../api/defaults/core.js';
import type { KubeObject } from '../../api/object.js';
import { ApiError } from '../../machinery/api-error.js';
import type { RegistryStore } from '../registry/registry-store.js';
import type { AdmissionAttributes } from './admission.js';
import { podResources } from '../../machinery/quota/pod-resources.js';
import { LIMIT_RANGER_ANNOTATION, LimitRanger, validateClaim } from './limit-ranger.js';

function range(limits: LimitRangeItem[]): LimitRange {
  const lr: LimitRange = { metadata: { name: 'limits', namespace: 'app' }, spec: { limits } };
  setLimitRangeDefaults(lr);
  return lr;
}

function pluginWith(...ranges: LimitRange[]): LimitRanger {
  return new LimitRanger(() => ({ list: async () => ({ items: ranges as KubeObject[] }) }) as unknown as RegistryStore);
}

function attrs(object: KubeObject, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' }, subresource: '',
    namespace: 'app', name: object.metadata?.name ?? '', object, dryRun: false, user: { name: 'jane', groups: [] }, ...over,
  };
}

const pod = (containers: Container[], initContainers?: Container[]): Pod => ({ metadata: { name: 'web', namespace: 'app' }, spec: { containers, initContainers } });

async function refusal(p: LimitRanger, a: AdmissionAttributes): Promise<string> {
  try {
    await p.validate(a);
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 403);
    return err.message;
  }
  assert.fail('admitted');
}

describe('LimitRanger', () => {
  it('sets default requests and limits on new pods, with upstream annotation; own limits become requests first', async () => {
    const p = pluginWith(range([{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }]));
    const obj = pod([{ name: 'a', image: 'x' }, { name: 'b', image: 'x', resources: { limits: { memory: '1Gi' } } }], [{ name: 'init', image: 'x' }]);
    await p.admit(attrs(obj as KubeObject));
    assert.deepEqual(obj.spec!.containers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    assert.deepEqual(obj.spec!.containers[1].resources, { limits: { memory: '1Gi', cpu: '500m' }, requests: { memory: '1Gi', cpu: '100m' } });
    assert.equal(
      obj.metadata!.annotations![LIMIT_RANGER_ANNOTATION],
      'LimitRanger plugin set: cpu, memory request for container a; cpu, memory limit for container a; cpu request for container b; cpu limit for container b; cpu, memory request for init container init; cpu, memory limit for init container init',
    );
  });

  it('does not touch pod updates or subresources', async () => {
    const p = pluginWith(range([{ type: 'Container', default: { cpu: '1' } }]));
    const obj = pod([{ name: 'a', image: 'x' }]);
    await p.admit(attrs(obj as KubeObject, { operation: 'UPDATE' }));
    await p.admit(attrs(obj as KubeObject, { subresource: 'status' }));
    assert.equal(obj.spec!.containers[0].resources, undefined);
  });

  it('refuses containers over max or under min, with upstream messages', async () => {
    const p = pluginWith(range([{ type: 'Container', max: { cpu: '1' }, min: { memory: '64Mi' } }]));
    const over = pod([{ name: 'a', image: 'x', resources: { limits: { cpu: '2', memory: '128Mi' } } }]);
    await p.admit(attrs(over as KubeObject));
    assert.equal(await refusal(p, attrs(over as KubeObject)), 'pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
    const both = pod([{ name: 'a', image: 'x', resources: { requests: { memory: '32Mi' }, limits: { cpu: '2' } } }]);
    assert.equal(await refusal(p, attrs(both as KubeObject)), 'pods "web" is forbidden: [minimum memory usage per Container is 64Mi, but request is 32Mi, maximum cpu usage per Container is 1, but limit is 2]');
  });

  it('maxLimitRequestRatio and Pod totals', async () => {
    const p = pluginWith(range([{ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }, { type: 'Pod', max: { memory: '1Gi' } }]));
    const obj = pod([
      { name: 'a', image: 'x', resources: { requests: { cpu: '100m', memory: '512Mi' }, limits: { cpu: '500m', memory: '512Mi' } } },
      { name: 'b', image: 'x', resources: { requests: { cpu: '1' }, limits: { cpu: '1', memory: '768Mi' } } },
    ]);
    assert.equal(
      await refusal(p, attrs(obj as KubeObject)),
      'pods "web" is forbidden: [cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000, maximum memory usage per Pod is 1Gi, but limit is 1280Mi]',
    );
  });

  it('pod totals count sidecars and the largest init container', () => {
    const obj = pod(
      [{ name: 'a', image: 'x', resources: { requests: { cpu: '1' } } }],
      [
        { name: 'side', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '500m' } } },
        { name: 'big', image: 'x', resources: { requests: { cpu: '3' } } },
      ],
    );
    assert.equal(podResources(obj, 'requests').get('cpu')!.toString(), '3500m');
  });

  it('claims are bounded by PersistentVolumeClaim items on their requests', () => {
    const lr = range([{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }]);
    assert.deepEqual(validateClaim(lr, { spec: { resources: { requests: { storage: '20Gi' } } } }), ['maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi']);
    assert.deepEqual(validateClaim(lr, { spec: { resources: { requests: { storage: '5Gi' } } } }), []);
  });
});
