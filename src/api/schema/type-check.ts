import { builtinDefinitions, definitionNameForKind } from './definitions.js';
import { refName, type Definitions, type GroupVersionKind, type OpenApiSchema } from './openapi-schema.js';

/**
 * The first value whose JSON type does not fit the kind's schema, worded as
 * Go's encoding/json reports it when upstream decodes into typed structs:
 * `json: cannot unmarshal number into Go struct field Deployment.spec of type
 * v1.DeploymentSpec`. Values that decoding would drop or accept (null, unknown
 * fields, free-form values) pass; undefined means the object fits.
 */
export function findTypeError(obj: unknown, gvk: GroupVersionKind, defs: Definitions = builtinDefinitions()): string | undefined {
  const name = definitionNameForKind(gvk.group, gvk.version, gvk.kind);
  const root = name ? defs[name] : undefined;
  if (!root) return undefined;
  return check(obj, { $ref: `#/definitions/${name}` }, { key: gvk.kind }, defs);
}

/** A field's path, joined into `Deployment.spec.replicas` only when an error names it (most checks pass). */
interface FieldPath {
  parent?: FieldPath;
  key: string;
}

const pathText = (p: FieldPath): string => (p.parent ? `${pathText(p.parent)}.${p.key}` : p.key);

/* $ref chains resolved once per schema object and definitions table (the walk meets the same schemas for every request). */
const resolved = new WeakMap<Definitions, WeakMap<OpenApiSchema, OpenApiSchema | null>>();

function resolve(schema: OpenApiSchema, defs: Definitions): OpenApiSchema | undefined {
  if (!schema.$ref) return schema;
  let byDefs = resolved.get(defs);
  if (!byDefs) resolved.set(defs, (byDefs = new WeakMap()));
  const hit = byDefs.get(schema);
  if (hit !== undefined) return hit ?? undefined;
  let s: OpenApiSchema | undefined = schema;
  for (let hops = 0; s?.$ref && hops < 16; hops++) s = defs[refName(s.$ref)];
  byDefs.set(schema, s ?? null);
  return s;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // object, number, string
}

/** Go's name for the type a schema decodes into, e.g. `v1.PodSpec`, `[]v1.Container`, `map[string]string`. */
function goType(schema: OpenApiSchema, defs: Definitions): string {
  if (schema.$ref) {
    const parts = refName(schema.$ref).split('.');
    return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
  }
  switch (schema.type) {
    case 'array':
      return `[]${schema.items ? goType(schema.items, defs) : 'interface {}'}`;
    case 'object':
      return typeof schema.additionalProperties === 'object' ? `map[string]${goType(schema.additionalProperties, defs)}` : 'map[string]interface {}';
    case 'integer':
      return schema.format === 'int64' ? 'int64' : 'int32';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    default:
      return 'string';
  }
}

function mismatch(value: unknown, path: FieldPath, schema: OpenApiSchema, defs: Definitions): string {
  const shown = typeof value === 'number' && !Number.isInteger(value) ? `number ${value}` : jsonType(value);
  return `json: cannot unmarshal ${shown} into Go struct field ${pathText(path)} of type ${goType(schema, defs)}`;
}

function check(value: unknown, schema: OpenApiSchema, path: FieldPath, defs: Definitions): string | undefined {
  if (value === null || value === undefined || schema['x-kubernetes-preserve-unknown-fields']) return undefined;
  const s = resolve(schema, defs);
  if (!s || s['x-kubernetes-preserve-unknown-fields']) return undefined;
  const fail = () => mismatch(value, path, schema, defs);
  if (s.format === 'int-or-string') return typeof value === 'string' || Number.isInteger(value) ? undefined : fail();
  switch (s.type) {
    case 'string':
      // Quantity also decodes from a bare number
      if (typeof value === 'string') return undefined;
      return typeof value === 'number' && refName(schema.$ref ?? '').endsWith('resource.Quantity') ? undefined : fail();
    case 'integer':
      return Number.isInteger(value) ? undefined : fail();
    case 'number':
      return typeof value === 'number' ? undefined : fail();
    case 'boolean':
      return typeof value === 'boolean' ? undefined : fail();
    case 'array':
      if (!Array.isArray(value)) return fail();
      for (const item of value) {
        const err = s.items ? check(item, s.items, path, defs) : undefined;
        if (err) return err;
      }
      return undefined;
    case undefined:
      // a schema without a type (apiextensions' JSON) holds any value
      if (!s.properties && !s.additionalProperties) return undefined;
      return checkObject(value, s, path, defs, fail);
    default:
      return checkObject(value, s, path, defs, fail);
  }
}

function checkObject(value: unknown, s: OpenApiSchema, path: FieldPath, defs: Definitions, fail: () => string): string | undefined {
  if (typeof value !== 'object' || Array.isArray(value)) return fail();
  const obj = value as Record<string, unknown>;
  for (const key in obj) {
    if (!Object.hasOwn(obj, key)) continue;
    const own = s.properties && Object.hasOwn(s.properties, key) ? s.properties[key] : undefined;
    const prop = own ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    const err = prop ? check(obj[key], prop, own ? { parent: path, key } : path, defs) : undefined;
    if (err) return err;
  }
  return undefined;
}
