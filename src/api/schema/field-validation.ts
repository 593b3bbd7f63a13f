import { builtinDefinitions, definitionNameForKind } from './definitions.js';
import { findDuplicateFields } from './duplicate-fields.js';
import type { JsonBody } from './json-body.js';
import { refName, type Definitions, type GroupVersionKind, type OpenApiSchema } from './openapi-schema.js';

/**
 * Server-side field validation (`?fieldValidation=Strict|Warn|Ignore`):
 * fields the schema does not know and keys given twice, reported as
 * upstream's strict JSON decoder words them.
 */

export type FieldValidationDirective = 'Strict' | 'Warn' | 'Ignore';

export interface FieldValidationResult {
  /** Strict only: the message of the 400 BadRequest to answer with. */
  error?: string;
  /** Warn only: one `Warning: 299` header each. */
  warnings: string[];
  /** The individual findings, e.g. `unknown field "spec.replicass"`, whatever the directive. */
  strictErrors: string[];
  /** Paths of the unknown fields (`.spec.replicass`), for dropping them; found under every directive. */
  unknownPaths: string[];
}

/** Upstream stops collecting strict errors after this many. */
const MAX_STRICT_ERRORS = 100;

/**
 * The one call a create/update/patch handler makes after decoding a body.
 * `rawBody` is the JSON text when there is one (duplicates are invisible
 * once parsed), best with the count of keys its parse kept (a JsonBody), which
 * spares most bodies the duplicate scan; protobuf and YAML bodies pass undefined.
 */
export function checkFieldValidation(
  rawBody: string | JsonBody | undefined,
  obj: unknown,
  gvk: GroupVersionKind,
  directive: FieldValidationDirective,
  /** The unknown fields when the caller knows them (custom resources' schemas are not built-in definitions). */
  knownUnknownPaths?: string[],
): FieldValidationResult {
  const unknownPaths = knownUnknownPaths ?? findUnknownFields(obj, gvk.group, gvk.version, gvk.kind);
  if (directive === 'Ignore') return { warnings: [], strictErrors: [], unknownPaths };
  const duplicates = rawBody === undefined ? [] : typeof rawBody === 'string' ? findDuplicateFields(rawBody) : findDuplicateFields(rawBody.text, rawBody.parsedKeys);
  const strictErrors = [...duplicates.map((p) => `duplicate field "${p.slice(1)}"`), ...unknownPaths.map((p) => `unknown field "${p.slice(1)}"`)].slice(0, MAX_STRICT_ERRORS);
  if (!strictErrors.length) return { warnings: [], strictErrors, unknownPaths };
  if (directive === 'Warn') return { warnings: strictErrors, strictErrors, unknownPaths };
  return { error: cannotBeHandledMessage(gvk, strictErrors), warnings: [], strictErrors, unknownPaths };
}

/** `strict decoding error: unknown field "a", duplicate field "b"` */
export function strictDecodingMessage(strictErrors: string[]): string {
  return `strict decoding error: ${strictErrors.join(', ')}`;
}

/** The BadRequest message of a create or update whose body failed strict decoding. */
export function cannotBeHandledMessage(gvk: GroupVersionKind, strictErrors: string[]): string {
  return `${gvk.kind} in version "${gvk.version}" cannot be handled as a ${gvk.kind}: ${strictDecodingMessage(strictErrors)}`;
}

/**
 * Paths of fields in `obj` that the kind's schema does not declare, e.g.
 * `.spec.replicass`, `.spec.template.spec.containers[0].imagee`. Free-form
 * values (maps' keys, RawExtension, FieldsV1, preserve-unknown-fields) are
 * not descended into. An unknown kind yields [].
 */
export function findUnknownFields(obj: unknown, group: string, version: string, kind: string, defs: Definitions = builtinDefinitions()): string[] {
  const name = definitionNameForKind(group, version, kind);
  const root = name ? defs[name] : undefined;
  if (!root) return [];
  const out: string[] = [];
  let cache = resolvedByDefs.get(defs);
  if (!cache) resolvedByDefs.set(defs, (cache = new Map()));
  walk(obj, root, [], defs, cache, out);
  return out;
}

/** $ref chains resolved once per definitions table (every write meets the same schemas). */
const resolvedByDefs = new WeakMap<Definitions, Map<OpenApiSchema, OpenApiSchema | undefined>>();

function resolve(schema: OpenApiSchema, defs: Definitions, cache: Map<OpenApiSchema, OpenApiSchema | undefined>): OpenApiSchema | undefined {
  if (!schema.$ref) return schema;
  if (cache.has(schema)) return cache.get(schema);
  let s: OpenApiSchema | undefined = schema;
  for (let hops = 0; s?.$ref && hops < 16; hops++) s = defs[refName(s.$ref)];
  cache.set(schema, s);
  return s;
}

/** `.spec.containers[0].imagee` from the walk's stack of keys (strings) and indexes (numbers). */
function pathOf(stack: readonly (string | number)[], last: string): string {
  let p = '';
  for (const seg of stack) p += typeof seg === 'number' ? `[${seg}]` : `.${seg}`;
  return `${p}.${last}`;
}

// The path is a stack, joined only for an unknown field: most writes have none.
function walk(value: unknown, schema: OpenApiSchema, stack: (string | number)[], defs: Definitions, cache: Map<OpenApiSchema, OpenApiSchema | undefined>, out: string[]): void {
  if (schema['x-kubernetes-preserve-unknown-fields']) return;
  const s = resolve(schema, defs, cache);
  if (!s || s['x-kubernetes-preserve-unknown-fields'] || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (!s.items) return;
    for (let i = 0; i < value.length; i++) {
      stack.push(i);
      walk(value[i], s.items, stack, defs, cache, out);
      stack.pop();
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  const props = s.properties;
  const additional = !props && s.additionalProperties && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  // An object schema without properties or additionalProperties is free-form.
  if (!props && !additional) return;
  for (const key of Object.keys(obj)) {
    const prop = props ? props[key] : additional;
    if (!prop) {
      out.push(pathOf(stack, key));
      continue;
    }
    stack.push(key);
    walk(obj[key], prop, stack, defs, cache, out);
    stack.pop();
  }
}
