/**
 * The subset of an OpenAPI (swagger 2.0 flavoured) schema that describes the
 * built-in types. References are `#/definitions/<name>` as upstream's swagger
 * document spells them; the v3 document rewrites them to `#/components/schemas`.
 */
export interface OpenApiSchema {
  $ref?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema | boolean;
  items?: OpenApiSchema;
  required?: string[];
  'x-kubernetes-group-version-kind'?: GroupVersionKind[];
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** Definition name → schema, e.g. `io.k8s.api.core.v1.Pod`. */
export type Definitions = Record<string, OpenApiSchema>;

export const DEFINITION_REF_PREFIX = '#/definitions/';

/** `#/definitions/io.k8s.api.core.v1.Pod` → `io.k8s.api.core.v1.Pod`. */
export function refName(ref: string): string {
  const slash = ref.lastIndexOf('/');
  return slash < 0 ? ref : ref.slice(slash + 1);
}

/**
 * The definition-name prefix of a kubernetes-types module, as upstream names
 * its Go packages: `core/v1` → `io.k8s.api.core.v1`.
 */
export function definitionPrefix(module: string): string {
  switch (module) {
    case 'meta/v1':
      return 'io.k8s.apimachinery.pkg.apis.meta.v1';
    case 'runtime':
      return 'io.k8s.apimachinery.pkg.runtime';
    case 'api/resource':
      return 'io.k8s.apimachinery.pkg.api.resource';
    case 'util/intstr':
      return 'io.k8s.apimachinery.pkg.util.intstr';
    case 'apiextensions/v1':
      return 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
    case 'apiregistration/v1':
      return 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1';
    default:
      return `io.k8s.api.${module.replace('/', '.')}`;
  }
}
