import type { ExternalDocumentation, ValidationRule } from 'kubernetes-types/apiextensions/v1.js';

/**
 * The one schema type every pass (structural check, validation, defaulting,
 * pruning, CEL) walks: apiextensions.k8s.io/v1 JSONSchemaProps as sent,
 * with the `x-kubernetes-*` extensions kubernetes-types leaves out.
 */
export interface Schema {
  $ref?: string;
  $schema?: string;
  id?: string;
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  default?: unknown;
  example?: unknown;
  enum?: unknown[];
  nullable?: boolean;
  maximum?: number;
  minimum?: number;
  exclusiveMaximum?: boolean;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: Schema | Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  additionalItems?: Schema | boolean;
  patternProperties?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
  dependencies?: Record<string, Schema | string[]>;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  externalDocs?: ExternalDocumentation;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

/** `additionalProperties` is a schema or a boolean; only a schema says what the values look like. */
export function additionalSchema(s: Schema): Schema | undefined {
  const ap = s.additionalProperties;
  return typeof ap === 'object' && ap !== null ? ap : undefined;
}

/** `items` may (wrongly) be an array on the wire; structural schemas have one object. */
export function itemsSchema(s: Schema): Schema | undefined {
  const items = s.items;
  return typeof items === 'object' && items !== null && !Array.isArray(items) ? items : undefined;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The schema of a CRD version, typed with the extensions. */
export function versionSchema(v: { schema?: { openAPIV3Schema?: unknown } } | undefined): Schema | undefined {
  return v?.schema?.openAPIV3Schema as Schema | undefined;
}
