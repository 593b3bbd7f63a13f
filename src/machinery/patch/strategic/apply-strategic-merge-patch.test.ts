import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PatchError } from '../patch-error.js';
import { applyStrategicMergePatch, patchTargetOf } from './apply-strategic-merge-patch.js';

const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };
const POD = { group: '', version: 'v1', kind: 'Pod' };

type Json = Record<string, unknown>;

/** A Deployment as skiff stores it after `kubectl apply` of a two-container file. */
function deployment(): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, annotations: { note: 'keep' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1',
              imagePullPolicy: 'IfNotPresent',
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
              ports: [
                { containerPort: 80, protocol: 'TCP' },
                { containerPort: 443, protocol: 'TCP' },
              ],
              volumeMounts: [{ mountPath: '/etc/cfg', name: 'cfg' }],
            },
            { name: 'side', image: 'busybox', imagePullPolicy: 'Always' },
          ],
          dnsPolicy: 'ClusterFirst',
          tolerations: [{ key: 'a', operator: 'Exists' }],
          volumes: [{ name: 'cfg', configMap: { name: 'cfg', defaultMode: 420 } }],
        },
      },
    },
  };
}

function podSpec(obj: unknown): Json {
  return ((obj as Json).spec as Json & { template: { spec: Json } }).template.spec;
}

function containers(obj: unknown): Json[] {
  return podSpec(obj).containers as Json[];
}

function patchError(fn: () => unknown, kind: PatchError['kind'], message: RegExp | string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof PatchError, `not a PatchError: ${String(err)}`);
    assert.equal(err.kind, kind);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

describe('applyStrategicMergePatch with the patches kubectl sends', () => {
  it('kubectl apply: image and env changed, a port and a container removed, a volume source switched', () => {
    // captured from kubectl 1.32 `apply -f` (last-applied annotation shortened)
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'x' } },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }],
            '$setElementOrder/volumes': [{ name: 'cfg' }],
            containers: [
              {
                '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }],
                '$setElementOrder/ports': [{ containerPort: 80 }],
                env: [{ name: 'B', value: '3' }],
                image: 'nginx:2',
                name: 'web',
                ports: [{ $patch: 'delete', containerPort: 443 }],
              },
              { $patch: 'delete', name: 'side' },
            ],
            volumes: [{ $retainKeys: ['name', 'secret'], configMap: null, name: 'cfg', secret: { secretName: 'cfg' } }],
          },
        },
      },
    };
    const original = deployment();
    const before = structuredClone(original);
    const patchBefore = structuredClone(patch);
    const out = applyStrategicMergePatch(original, patch, DEPLOYMENT);
    assert.deepEqual(original, before, 'original must not change');
    assert.deepEqual(patch, patchBefore, 'patch must not change');
    assert.deepEqual(containers(out), [
      {
        name: 'web',
        image: 'nginx:2',
        imagePullPolicy: 'IfNotPresent',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '3' },
        ],
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        volumeMounts: [{ mountPath: '/etc/cfg', name: 'cfg' }],
      },
    ]);
    assert.deepEqual(podSpec(out).volumes, [{ name: 'cfg', secret: { secretName: 'cfg' } }]);
    assert.deepEqual(podSpec(out).tolerations, [{ key: 'a', operator: 'Exists' }]);
    const meta = (out as Json).metadata as Json;
    assert.deepEqual(meta.annotations, { note: 'keep', 'kubectl.kubernetes.io/last-applied-configuration': 'x' });
  });

  it('kubectl apply: a port added in order, a finalizer added, the strategy switched with $retainKeys', () => {
    const patch = {
      metadata: { finalizers: ['example.com/a'] },
      spec: {
        strategy: { $retainKeys: ['type'], type: 'Recreate' },
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }],
            containers: [
              {
                '$setElementOrder/ports': [{ containerPort: 80 }, { containerPort: 8080 }, { containerPort: 443 }],
                name: 'web',
                ports: [{ containerPort: 8080, name: 'alt' }],
              },
            ],
          },
        },
      },
    };
    const out = applyStrategicMergePatch(deployment(), patch, DEPLOYMENT) as Json;
    assert.deepEqual((out.spec as Json).strategy, { type: 'Recreate' });
    assert.deepEqual((out.metadata as Json).finalizers, ['example.com/a']);
    assert.deepEqual(containers(out)[0].ports, [
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 8080, name: 'alt' },
      { containerPort: 443, protocol: 'TCP' },
    ]);
    // the untouched second container survives: it is not in $setElementOrder, so it goes after
    assert.deepEqual(
      containers(out).map((c) => c.name),
      ['web', 'side'],
    );
  });

  it('kubectl apply: fields removed from the file are nulled', () => {
    const patch = {
      metadata: { finalizers: null },
      spec: {
        strategy: null,
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }],
            containers: [{ '$setElementOrder/ports': [{ containerPort: 80 }], name: 'web', ports: [{ $patch: 'delete', containerPort: 443 }] }],
          },
        },
      },
    };
    const original = deployment();
    (original.metadata as Json).finalizers = ['example.com/a'];
    const out = applyStrategicMergePatch(original, patch, DEPLOYMENT) as Json;
    assert.equal(Object.hasOwn(out.metadata as Json, 'finalizers'), false);
    assert.equal(Object.hasOwn(out.spec as Json, 'strategy'), false);
    assert.deepEqual(containers(out)[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);
  });

  it('kubectl label --overwrite and label removal merge into metadata.labels', () => {
    let out = applyStrategicMergePatch(deployment(), { metadata: { labels: { team: 'x', tier: 'fe' } } }, DEPLOYMENT);
    out = applyStrategicMergePatch(out, { metadata: { labels: { tier: 'be' } } }, DEPLOYMENT);
    out = applyStrategicMergePatch(out, { metadata: { labels: { team: null } } }, DEPLOYMENT);
    assert.deepEqual(((out as Json).metadata as Json).labels, { app: 'web', tier: 'be' });
  });

  it('kubectl set image changes only the image of the named container', () => {
    const patch = { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'web' }, { name: 'side' }], containers: [{ image: 'nginx:3', name: 'web' }] } } } };
    const out = applyStrategicMergePatch(deployment(), patch, DEPLOYMENT);
    const expected = containers(deployment());
    expected[0] = { ...expected[0], image: 'nginx:3' };
    assert.deepEqual(containers(out), expected);
  });

  it('kubectl patch with a $patch: delete list element removes that element only', () => {
    const patch = { spec: { template: { spec: { containers: [{ name: 'web', env: [{ name: 'A', $patch: 'delete' }] }] } } } };
    const out = applyStrategicMergePatch(deployment(), patch, DEPLOYMENT);
    assert.deepEqual(containers(out)[0].env, [{ name: 'B', value: '2' }]);
    assert.equal(containers(out).length, 2);
  });

  it('kubectl patch of one container keeps its other fields and the other containers', () => {
    const out = applyStrategicMergePatch(deployment(), { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } }, DEPLOYMENT);
    const expected = containers(deployment());
    expected[0] = { ...expected[0], image: 'nginx:2' };
    assert.deepEqual(containers(out), expected);
  });
});

describe('applyStrategicMergePatch directives and strategies', () => {
  it('puts new merge-list items first without $setElementOrder (as upstream) and replaces lists without strategy', () => {
    const patch = { spec: { template: { spec: { containers: [{ name: 'new', image: 'x' }], tolerations: [{ key: 'b' }] } } } };
    const out = applyStrategicMergePatch(deployment(), patch, DEPLOYMENT);
    assert.deepEqual(
      containers(out).map((c) => c.name),
      ['new', 'web', 'side'],
    );
    assert.deepEqual(podSpec(out).tolerations, [{ key: 'b' }]);
  });

  it('$patch: replace on a list makes the patch the whole list', () => {
    const patch = { spec: { template: { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } } } };
    const out = applyStrategicMergePatch(deployment(), patch, DEPLOYMENT);
    assert.deepEqual(containers(out), [{ name: 'only', image: 'x' }]);
  });

  it('$patch: replace and delete on maps', () => {
    const replaced = applyStrategicMergePatch(deployment(), { metadata: { labels: { $patch: 'replace', only: 'this' } } }, DEPLOYMENT) as Json;
    assert.deepEqual((replaced.metadata as Json).labels, { only: 'this' });
    const deleted = applyStrategicMergePatch(deployment(), { spec: { strategy: { $patch: 'delete' } } }, DEPLOYMENT) as Json;
    assert.deepEqual((deleted.spec as Json).strategy, {});
  });

  it('rejects unknown and list-level merge directives', () => {
    patchError(() => applyStrategicMergePatch(deployment(), { spec: { strategy: { $patch: 'merge' } } }, DEPLOYMENT), 'PatchFailed', 'unknown patch type: merge in map: map[$patch:merge]');
    patchError(
      () => applyStrategicMergePatch(deployment(), { spec: { template: { spec: { containers: [{ $patch: 'merge' }] } } } }, DEPLOYMENT),
      'PatchFailed',
      'merging lists cannot yet be specified in the patch',
    );
  });

  it('merges primitive lists with merge strategy as unions and deletes through $deleteFromPrimitiveList', () => {
    const original = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', finalizers: ['a', 'b'] } };
    const union = applyStrategicMergePatch(original, { metadata: { finalizers: ['b', 'c'] } }, POD) as Json;
    assert.deepEqual((union.metadata as Json).finalizers, ['a', 'b', 'c']);
    const removed = applyStrategicMergePatch(original, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], '$setElementOrder/finalizers': ['b'] } }, POD) as Json;
    assert.deepEqual((removed.metadata as Json).finalizers, ['b']);
    patchError(() => applyStrategicMergePatch(original, { metadata: { $deleteFromPrimitiveList: ['a'] } }, POD), 'InvalidPatch', 'invalid patch format of primitive list');
  });

  it('orders merged lists by $setElementOrder', () => {
    const patch = { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'side' }, { name: 'web' }] } } } };
    const out = applyStrategicMergePatch(deployment(), patch, DEPLOYMENT);
    assert.deepEqual(
      containers(out).map((c) => c.name),
      ['side', 'web'],
    );
  });

  it('refuses a patch list out of the $setElementOrder order', () => {
    const patch = {
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'web' }, { name: 'side' }], containers: [{ name: 'side' }, { name: 'web' }] } } },
    };
    patchError(() => applyStrategicMergePatch(deployment(), patch, DEPLOYMENT), 'PatchFailed', /^the order in patch list:\n\[map\[name:side\] map\[name:web\]\]\n doesn't match \$setElementOrder list:\n/);
    patchError(() => applyStrategicMergePatch(deployment(), { spec: { $setElementOrder: [] } }, DEPLOYMENT), 'InvalidPatch', 'invalid patch format of setElementOrder list');
  });

  it('$retainKeys must list every field the patch sets', () => {
    patchError(
      () => applyStrategicMergePatch(deployment(), { spec: { strategy: { $retainKeys: ['rollingUpdate'], type: 'Recreate' } } }, DEPLOYMENT),
      'InvalidPatch',
      'invalid patch format of retainKeys',
    );
    patchError(() => applyStrategicMergePatch(deployment(), { spec: { strategy: { $retainKeys: 'type' } } }, DEPLOYMENT), 'InvalidPatch', 'invalid patch format of retainKeys');
  });

  it('requires the merge key on merge-list items', () => {
    patchError(
      () => applyStrategicMergePatch(deployment(), { spec: { template: { spec: { containers: [{ image: 'x' }] } } } }, DEPLOYMENT),
      'PatchFailed',
      'map: map[image:x] does not contain declared merge key: name',
    );
    patchError(
      () => applyStrategicMergePatch(deployment(), { spec: { template: { spec: { containers: [{ name: 'web', ports: [{ name: 'http' }] }] } } } }, DEPLOYMENT),
      'PatchFailed',
      'map: map[name:http] does not contain declared merge key: containerPort',
    );
  });

  it('drops nulls and directives from values it takes whole', () => {
    const original = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} };
    const out = applyStrategicMergePatch(original, { spec: { containers: [{ name: 'c', image: null, env: [{ $patch: 'delete', name: 'x' }] }], nodeName: null } }, POD);
    assert.deepEqual(out, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', env: [] }] } });
  });

  it('falls back to JSON merge semantics for kinds and fields without schema', () => {
    const original = { apiVersion: 'example.com/v1', kind: 'Widget', spec: { items: [{ name: 'a' }], keep: 1 } };
    const out = applyStrategicMergePatch(original, { spec: { items: [{ name: 'b' }], keep: null, add: { x: 1 } } }, { group: 'example.com', version: 'v1', kind: 'Widget' });
    assert.deepEqual(out, { apiVersion: 'example.com/v1', kind: 'Widget', spec: { items: [{ name: 'b' }], add: { x: 1 } } });
  });

  it('uses merge keys of nested types: Service ports by port, pod conditions by type', () => {
    const svc = { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] } };
    const out = applyStrategicMergePatch(svc, { spec: { ports: [{ port: 443, targetPort: 8443 }] } }, { group: '', version: 'v1', kind: 'Service' }) as Json;
    assert.deepEqual((out.spec as Json).ports, [
      { port: 80, name: 'http' },
      { port: 443, name: 'https', targetPort: 8443 },
    ]);
    const pod = { apiVersion: 'v1', kind: 'Pod', status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Initialized', status: 'True' }] } };
    const patched = applyStrategicMergePatch(pod, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, POD) as Json;
    assert.deepEqual((patched.status as Json).conditions, [
      { type: 'Ready', status: 'True' },
      { type: 'Initialized', status: 'True' },
    ]);
  });

  it('rejects a patch that is not a JSON object and treats null as no change', () => {
    patchError(() => applyStrategicMergePatch(deployment(), [], DEPLOYMENT), 'InvalidPatch', 'json: cannot unmarshal array into Go value of type map[string]interface {}');
    assert.deepEqual(applyStrategicMergePatch(deployment(), null, DEPLOYMENT), deployment());
  });

  it('keeps __proto__ a plain key', () => {
    const patch = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}') as unknown;
    const out = applyStrategicMergePatch(deployment(), patch, DEPLOYMENT) as Json;
    const labels = (out.metadata as Json).labels as Json;
    assert.equal(Object.getPrototypeOf(labels), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(labels, '__proto__')?.value, { polluted: 'yes' });
    assert.equal(({} as Json).polluted, undefined);
  });

  it('derives the target from apiVersion and kind', () => {
    assert.deepEqual(patchTargetOf({ apiVersion: 'apps/v1', kind: 'Deployment' }), DEPLOYMENT);
    assert.deepEqual(patchTargetOf({ apiVersion: 'v1', kind: 'Pod' }), POD);
  });
});
