import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectlFor, removeDir, startServer, waitFor, type ServerProcess } from './harness.js';

// The resource registry is live and kubectl's disk cache follows it: a CRD
// added and then removed while the server runs shows up in and leaves
// `kubectl api-resources` and `kubectl explain`, with one --cache-dir kept
// across the calls. kubectl revalidates its cached aggregated discovery with
// If-None-Match: unchanged, the server answers 304 (the cache is used);
// changed, the ETag no longer matches and the new document is fetched, as
// against an upstream API server. kubectl 1.27 asks for apidiscovery v2beta1,
// 1.33 for v2.

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.toys.skiff.dev}
spec:
  group: toys.skiff.dev
  names: {kind: Gizmo, plural: gizmos, shortNames: [gz]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the gizmo should be.
            properties:
              gears: {type: integer, description: How many gears it turns.}
`;

const GIZMOS = /^gizmos\s+gz\s+toys\.skiff\.dev\/v1\s+true\s+Gizmo$/m;

/** How many requests the server has answered 304 Not Modified (its apiserver_request_total counter). */
async function notModifiedCount(k: ReturnType<typeof kubectlFor>): Promise<number> {
  let n = 0;
  for (const m of (await k.ok(['get', '--raw', '/metrics'])).matchAll(/^apiserver_request_total\{[^}]*code="304"[^}]*\} (\d+)/gm)) n += Number(m[1]);
  return n;
}

describe('kubectl api-resources and explain follow the live registry', () => {
  let server: ServerProcess;

  before(async () => {
    server = await startServer({ command: 'apiserver' });
  });

  after(async () => {
    await server?.stop();
    await removeDir(server?.dataDir);
  });

  for (const version of ['1.27', '1.33']) {
    it(`kubectl ${version}: a CRD added and removed at run time, seen through one disk cache`, async () => {
      const k = kubectlFor(server.kubeconfig, version);
      const cacheDir = await mkdtemp(join(tmpdir(), 'skiff-kubectl-cache-'));
      const cached = (args: string[]) => k.exec(['--cache-dir', cacheDir, ...args]);
      try {
        const first = await cached(['api-resources']);
        assert.equal(first.code, 0, first.stderr);
        assert.doesNotMatch(first.stdout, GIZMOS);
        assert.match(first.stdout, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);

        // unchanged: kubectl revalidates its cached copies (If-None-Match) and the server says 304
        const before304 = await notModifiedCount(k);
        const again = await cached(['api-resources']);
        assert.equal(again.code, 0, again.stderr);
        assert.equal(again.stdout, first.stdout);
        assert.ok((await notModifiedCount(k)) > before304, 'kubectl revalidated its disk cache and got 304');

        await k.ok(['apply', '-f', '-'], { input: CRD });
        await k.ok(['wait', '--for', 'condition=Established', '--timeout', '20s', 'crd/gizmos.toys.skiff.dev']);
        // changed: the ETag no longer matches, so the same disk cache gets the new document
        await waitFor('gizmos in discovery', async () => GIZMOS.test((await cached(['api-resources'])).stdout));
        const explain = await cached(['explain', 'gizmos.spec']);
        assert.equal(explain.code, 0, explain.stderr);
        assert.match(explain.stdout, /What the gizmo should be/);
        assert.match(explain.stdout, /gears\s+<integer>\s+How many gears it turns/);
        await k.ok(['apply', '-f', '-'], { input: 'apiVersion: toys.skiff.dev/v1\nkind: Gizmo\nmetadata: {name: g, namespace: default}\nspec: {gears: 3}\n' });

        await k.ok(['delete', 'crd', 'gizmos.toys.skiff.dev', '--timeout', '30s']);
        await waitFor('gizmos gone from discovery', async () => !GIZMOS.test((await cached(['api-resources'])).stdout));
        const gone = await cached(['get', 'gizmos']);
        assert.notEqual(gone.code, 0);
        assert.match(gone.stderr, /the server doesn't have a resource type "gizmos"/);
        const noExplain = await cached(['explain', 'gizmos']);
        assert.notEqual(noExplain.code, 0);
      } finally {
        await removeDir(cacheDir);
      }
    });
  }
});
