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
  let byDefs = resolved.get(defs);
  if (!byDefs) resolved.set(defs, (byDefs = new WeakMap()));
  return check(obj, { $ref: `#/definitions/${name}` }, undefined, gvk.kind, { defs, resolved: byDefs });
}

/**
 * A field's path, joined into `Deployment.spec.replicas` only when an error
 * names it (most checks pass). The walk passes a value's parent and key
 * separately, so only objects it descends into allocate a node.
 */
interface FieldPath {
  parent?: FieldPath;
  key: string;
}

const pathText = (p: FieldPath | undefined, key: string): string => (p ? `${pathText(p.parent, p.key)}.${key}` : key);

interface Walk {
  defs: Definitions;
  resolved: WeakMap<OpenApiSchema, OpenApiSchema | null>;
}

/* $ref chains resolved once per schema object and definitions table (the walk meets the same schemas for every request). */
const resolved = new WeakMap<Definitions, WeakMap<OpenApiSchema, OpenApiSchema | null>>();

function resolve(schema: OpenApiSchema, w: Walk): OpenApiSchema | undefined {
  if (!schema.$ref) return schema;
  const hit = w.resolved.get(schema);
  if (hit !== undefined) return hit ?? undefined;
  let s: OpenApiSchema | undefined = schema;
  for (let hops = 0; s?.$ref && hops < 16; hops++) s = w.defs[refName(s.$ref)];
  w.resolved.set(schema, s ?? null);
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

function mismatch(value: unknown, parent: FieldPath | undefined, key: string, schema: OpenApiSchema, defs: Definitions): string {
  const shown = typeof value === 'number' && !Number.isInteger(value) ? `number ${value}` : jsonType(value);
  return `json: cannot unmarshal ${shown} into Go struct field ${pathText(parent, key)} of type ${goType(schema, defs)}`;
}

// No closures per call: this runs for every field of every write.
function check(value: unknown, schema: OpenApiSchema, parent: FieldPath | undefined, key: string, w: Walk): string | undefined {
  if (value === null || value === undefined || schema['x-kubernetes-preserve-unknown-fields']) return undefined;
  const s = resolve(schema, w);
  if (!s || s['x-kubernetes-preserve-unknown-fields']) return undefined;
  if (s.format === 'int-or-string') return typeof value === 'string' || Number.isInteger(value) ? undefined : mismatch(value, parent, key, schema, w.defs);
  switch (s.type) {
    case 'string':
      // Quantity also decodes from a bare number
      if (typeof value === 'string') return undefined;
      return typeof value === 'number' && refName(schema.$ref ?? '').endsWith('resource.Quantity') ? undefined : mismatch(value, parent, key, schema, w.defs);
    case 'integer':
      return Number.isInteger(value) ? undefined : mismatch(value, parent, key, schema, w.defs);
    case 'number':
      return typeof value === 'number' ? undefined : mismatch(value, parent, key, schema, w.defs);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : mismatch(value, parent, key, schema, w.defs);
    case 'array':
      if (!Array.isArray(value)) return mismatch(value, parent, key, schema, w.defs);
      if (!s.items) return undefined;
      for (const item of value) {
        const err = check(item, s.items, parent, key, w);
        if (err) return err;
      }
      return undefined;
    case undefined:
      // a schema without a type (apiextensions' JSON) holds any value
      if (!s.properties && !s.additionalProperties) return undefined;
      return checkObject(value, s, schema, parent, key, w);
    default:
      return checkObject(value, s, schema, parent, key, w);
  }
}

function checkObject(value: unknown, s: OpenApiSchema, schema: OpenApiSchema, parent: FieldPath | undefined, key: string, w: Walk): string | undefined {
  if (typeof value !== 'object' || Array.isArray(value)) return mismatch(value, parent, key, schema, w.defs);
  const obj = value as Record<string, unknown>;
  const props = s.properties;
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  let here: FieldPath | undefined;
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const own = props && Object.hasOwn(props, k) ? props[k] : undefined;
    const prop = own ?? additional;
    if (!prop) continue;
    // a map's values are named by the map field itself, as Go's decoder names them
    const err = own ? check(obj[k], own, (here ??= { parent, key }), k, w) : check(obj[k], prop, parent, key, w);
    if (err) return err;
  }
  return undefined;
}
