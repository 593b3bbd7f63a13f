import type { CustomResourceDefinitionVersion } from 'kubernetes-types/apiextensions/v1.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import type { OpenApiSchema } from '../../api/schema/openapi-schema.js';
import type { ResourceModels } from '../openapi/resource-models.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/**
 * The OpenAPI definitions of a custom resource, named as upstream names
 * them (the group reversed, then version and kind:
 * `cert.skiff.dev` v1 Certificate → `dev.skiff.cert.v1.Certificate`): the
 * version's schema with apiVersion, kind and metadata filled in, and its list.
 */
export function customResourceModels(info: ResourceInfo, version: CustomResourceDefinitionVersion): ResourceModels {
  const prefix = `${info.group.split('.').reverse().join('.')}.${info.version}`;
  const kind = `${prefix}.${info.kind}`;
  const list = `${prefix}.${info.listKind}`;
  const schema = (version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) as OpenApiSchema;
  const gvk = (k: string) => [{ group: info.group, version: info.version, kind: k }];
  const typeMeta = {
    apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
    kind: { type: 'string', description: KIND_DESCRIPTION },
  } satisfies Record<string, OpenApiSchema>;
  const object: OpenApiSchema = {
    ...schema,
    type: 'object',
    properties: { ...schema.properties, ...typeMeta, metadata: { $ref: `#/definitions/${META}.ObjectMeta`, description: METADATA_DESCRIPTION } },
    'x-kubernetes-group-version-kind': gvk(info.kind),
  };
  const listSchema: OpenApiSchema = {
    type: 'object',
    description: `${info.listKind} is a list of ${info.kind}`,
    required: ['items'],
    properties: {
      ...typeMeta,
      items: { type: 'array', description: `List of ${info.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, items: { $ref: `#/definitions/${kind}` } },
      metadata: { $ref: `#/definitions/${META}.ListMeta`, description: 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds' },
    },
    'x-kubernetes-group-version-kind': gvk(info.listKind),
  };
  return { kind, list, definitions: { [kind]: object, [list]: listSchema } };
}

const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DESCRIPTION = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
