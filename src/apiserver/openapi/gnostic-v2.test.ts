import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { encodeSwaggerDocument, GnosticEncodingError } from './gnostic-v2.js';
import { all, one, str } from './proto-decoder.test-util.js';
import { RESOURCES } from '../../api/resources.js';
import { swaggerDocument } from './v2.js';

const BUILTINS = RESOURCES.map((info) => ({ info }));

// Field numbers from gnostic openapiv2/OpenAPIv2.proto.
const DOC = { swagger: 1, info: 2, paths: 8, definitions: 9 };
const PATHS_PATH = 2;
const PATH_ITEM = { get: 2, patch: 8, parameters: 9 };
const OPERATION = { operationId: 5, parameters: 8, vendorExtension: 13 };

const bytes = encodeSwaggerDocument(swaggerDocument(BUILTINS));

function pathItem(path: string): Uint8Array {
  const named = all(one(bytes, DOC.paths)!, PATHS_PATH).find((n) => str(n, 1) === path);
  assert.ok(named, `path ${path} encoded`);
  return one(named, 2)!;
}

function vendorExtensions(op: Uint8Array): Record<string, unknown> {
  return Object.fromEntries(all(op, OPERATION.vendorExtension).map((n) => [str(n, 1)!, parse(str(one(n, 2), 2)!) as unknown]));
}

describe('gnostic openapi.v2.Document encoding', () => {
  it('carries the swagger version and info', () => {
    assert.equal(str(bytes, DOC.swagger), '2.0');
    assert.equal(str(one(bytes, DOC.info), 1), 'Kubernetes');
  });

  it('gives the PATCH of each kind its gvk extension and the fieldValidation query parameter (what kubectl 1.27 checks)', () => {
    const patch = one(pathItem('/apis/apps/v1/namespaces/{namespace}/deployments/{name}'), PATH_ITEM.patch)!;
    assert.equal(str(patch, OPERATION.operationId), 'patchNamespacedDeployment');
    assert.deepEqual(vendorExtensions(patch)['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.equal(vendorExtensions(patch)['x-kubernetes-action'], 'patch');
    // ParametersItem.parameter(1) → Parameter.non_body_parameter(2) → NonBodyParameter.query_parameter_sub_schema(3) → name(4)
    const queryNames = all(patch, OPERATION.parameters).map((p) => str(one(one(one(p, 1), 2), 3), 4));
    assert.ok(queryNames.includes('fieldValidation'), `query parameters: ${queryNames.join(',')}`);
    assert.ok(queryNames.includes('force'));
    // Body parameter: Parameter.body_parameter(1) → schema(5) → _ref(1)
    const body = all(patch, OPERATION.parameters).map((p) => one(one(p, 1), 1)).find(Boolean);
    assert.equal(str(one(body, 5), 1), '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
    // core group: empty group survives the YAML round trip
    const podPatch = one(pathItem('/api/v1/namespaces/{namespace}/pods/{name}'), PATH_ITEM.patch)!;
    assert.deepEqual(vendorExtensions(podPatch)['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'Pod' });
    // path-level parameters: PathParameterSubSchema(4) name
    const pathParams = all(pathItem('/api/v1/namespaces/{namespace}/pods/{name}'), PATH_ITEM.parameters).map((p) => str(one(one(one(p, 1), 2), 4), 4));
    assert.deepEqual(pathParams.slice(0, 2), ['name', 'namespace']);
  });

  it('encodes definitions with type, properties, refs, items, additionalProperties and extensions', () => {
    const defs = all(one(bytes, DOC.definitions)!, 1);
    assert.equal(defs.length, Object.keys(swaggerDocument(BUILTINS).definitions).length);
    const schemaOf = (name: string) => one(defs.find((d) => str(d, 1) === name)!, 2)!;
    const deploy = schemaOf('io.k8s.api.apps.v1.Deployment');
    assert.deepEqual(all(one(deploy, 22)!, 1).map((b) => Buffer.from(b).toString()), ['object']);
    const props = Object.fromEntries(all(one(deploy, 25)!, 1).map((n) => [str(n, 1)!, one(n, 2)!]));
    assert.equal(str(props.spec, 1), '#/definitions/io.k8s.api.apps.v1.DeploymentSpec');
    const gvk = all(deploy, 31).map((n) => parse(str(one(n, 2), 2)!) as unknown);
    assert.deepEqual(gvk, [[{ group: 'apps', kind: 'Deployment', version: 'v1' }]]);
    const podSpec = Object.fromEntries(all(one(schemaOf('io.k8s.api.core.v1.PodSpec'), 25)!, 1).map((n) => [str(n, 1)!, one(n, 2)!]));
    const containerItems = one(one(podSpec.containers, 23), 1)!;
    assert.equal(str(containerItems, 1), '#/definitions/io.k8s.api.core.v1.Container');
    assert.ok(all(podSpec.containers, 31).some((n) => str(n, 1) === 'x-kubernetes-patch-merge-key'));
    const nodeSelector = one(one(podSpec.nodeSelector, 21), 1)!;
    assert.deepEqual(all(one(nodeSelector, 22)!, 1).map((b) => Buffer.from(b).toString()), ['string']);
  });

  it('refuses fields it has no table entry for', () => {
    assert.throws(() => encodeSwaggerDocument({ swagger: '2.0', nonsense: 1 }), GnosticEncodingError);
  });
});
