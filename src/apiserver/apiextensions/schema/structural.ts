import { child, forbidden, index, invalid, key, required, type ErrorList } from '../../../api/validation/errors.js';
import { fieldErrorMessage } from '../../../api/validation/field-error.js';
import { additionalSchema, itemsSchema, type Schema } from './json-schema.js';

/**
 * Whether a CRD schema is structural, as upstream's ValidateStructural: every
 * field has a type outside of allOf/anyOf/oneOf/not, those junctors only
 * restrict values (no types, descriptions, defaults, nullable or x-kubernetes
 * markers inside them), metadata may only restrict name and generateName,
 * and every field a junctor mentions is also declared structurally.
 * Errors come sorted by their text, as upstream's.
 */

type Level = 'root' | 'item' | 'field';

const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;

export function validateStructural(s: Schema, path: string): ErrorList {
  const errs = [...invariants(s, 'root', path), ...completeness(s, s, path, path)];
  return errs.sort((a, b) => (fieldErrorMessage(a) < fieldErrorMessage(b) ? -1 : fieldErrorMessage(a) > fieldErrorMessage(b) ? 1 : 0));
}

function invariants(s: Schema, lvl: Level, path: string): ErrorList {
  const errs: ErrorList = [];
  const items = itemsSchema(s);
  if (s.type === 'array' && !items) errs.push(required(child(path, 'items'), 'must be specified'));
  if (items) errs.push(...invariants(items, 'item', child(path, 'items')));
  for (const [k, v] of Object.entries(s.properties ?? {})) errs.push(...invariants(v, 'field', key(child(path, 'properties'), k)));
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root') errs.push(forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    const ap = additionalSchema(s);
    if (ap) errs.push(...invariants(ap, 'field', child(path, 'additionalProperties')));
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) {
    errs.push(invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (intOrString && embedded) {
    errs.push(invalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  errs.push(...valueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAnyOf(s.allOf?.[0]?.anyOf), lvl, path));

  if (embedded && s.type !== 'object') {
    const detail = 'must be object if x-kubernetes-embedded-resource is true';
    errs.push(s.type ? invalid(child(path, 'type'), s.type, detail) : required(child(path, 'type'), detail));
  } else if (!s.type && !intOrString && !preserve) {
    const where = { root: 'at the root', item: 'for specified array items', field: 'for specified object fields' }[lvl];
    errs.push(required(child(path, 'type'), `must not be empty ${where}`));
  }
  if (embedded && s.additionalProperties !== undefined) {
    errs.push(forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && s.type && s.type !== 'object') errs.push(invalid(child(path, 'type'), s.type, 'must be object at the root'));

  const checkMetadata = lvl === 'root' || embedded;
  const props = s.properties ?? {};
  for (const f of ['kind', 'apiVersion']) {
    if (checkMetadata && props[f] && props[f].type !== 'string') {
      errs.push(invalid(child(key(child(path, 'properties'), f), 'type'), props[f].type ?? '', 'must be string'));
    }
  }
  if (props.metadata) errs.push(...metadataInvariants(props.metadata, checkMetadata, lvl, key(child(path, 'properties'), 'metadata')));
  if (embedded && !preserve && Object.keys(props).length === 0) {
    errs.push(required(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

function metadataInvariants(s: Schema, checkMetadata: boolean, lvl: Level, path: string): ErrorList {
  const errs: ErrorList = [];
  if (checkMetadata && s.type !== 'object') errs.push(invalid(child(path, 'type'), s.type ?? '', 'must be object'));
  if (lvl === 'root') {
    // only name and generateName may be restricted; anything else about metadata is implied
    const rest: Record<string, unknown> = { ...s };
    delete rest.type;
    delete rest.default;
    const props = Object.keys(s.properties ?? {});
    if (props.every((p) => p === 'name' || p === 'generateName')) delete rest.properties;
    if (Object.values(rest).some((v) => v !== undefined)) {
      errs.push(forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  return errs;
}

/** anyOf: [{type: integer}, {type: string}], the one typed junctor allowed (for int-or-string). */
function isIntOrStringAnyOf(anyOf: Schema[] | undefined): boolean {
  if (anyOf?.length !== 2) return false;
  const only = (x: Schema, t: string) => x.type === t && Object.keys(x).length === 1;
  return only(anyOf[0], 'integer') && only(anyOf[1], 'string');
}

function valueValidation(v: Schema, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string): ErrorList {
  const errs: ErrorList = [];
  if (!skipAnyOf) (v.anyOf ?? []).forEach((n, i) => errs.push(...nested(n, false, lvl, index(child(path, 'anyOf'), i))));
  (v.allOf ?? []).forEach((n, i) => errs.push(...nested(n, skipFirstAllOfAnyOf && i === 0, lvl, index(child(path, 'allOf'), i))));
  (v.oneOf ?? []).forEach((n, i) => errs.push(...nested(n, false, lvl, index(child(path, 'oneOf'), i))));
  if (v.not) errs.push(...nested(v.not, false, lvl, child(path, 'not')));
  if (v.pattern) {
    try {
      new RegExp(v.pattern, 'u');
    } catch (err) {
      errs.push(invalid(child(path, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${(err as Error).message}`));
    }
  }
  return errs;
}

/** A schema under a junctor: it may restrict values, never declare structure. */
function nested(v: Schema, skipAnyOf: boolean, lvl: Level, path: string): ErrorList {
  const errs = valueValidation(v, skipAnyOf, false, lvl, path);
  const items = itemsSchema(v);
  if (items) errs.push(...nested(items, false, lvl, child(path, 'items')));
  for (const [k, f] of Object.entries(v.properties ?? {})) errs.push(...nested(f, false, 'field', key(child(path, 'properties'), k)));
  const checks: [boolean, string, string][] = [
    [Boolean(v.type), 'type', 'must be empty to be structural'],
    [v.additionalProperties !== undefined, 'additionalProperties', 'must be undefined to be structural'],
    [v.default !== undefined, 'default', 'must be undefined to be structural'],
    [Boolean(v.title), 'title', 'must be empty to be structural'],
    [Boolean(v.description), 'description', 'must be empty to be structural'],
    [v.nullable === true, 'nullable', 'must be false to be structural'],
    [v.externalDocs !== undefined, 'externalDocs', 'must be undefined to be structural'],
    [v['x-kubernetes-preserve-unknown-fields'] === true, 'x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
    [v['x-kubernetes-embedded-resource'] === true, 'x-kubernetes-embedded-resource', 'must be false to be structural'],
    [v['x-kubernetes-int-or-string'] === true, 'x-kubernetes-int-or-string', 'must be false to be structural'],
    [(v['x-kubernetes-list-map-keys'] ?? []).length > 0, 'x-kubernetes-list-map-keys', 'must be empty to be structural'],
    [v['x-kubernetes-list-type'] !== undefined, 'x-kubernetes-list-type', 'must be undefined to be structural'],
    [v['x-kubernetes-map-type'] !== undefined, 'x-kubernetes-map-type', 'must be undefined to be structural'],
    [(v['x-kubernetes-validations'] ?? []).length > 0, 'x-kubernetes-validations', 'must be empty to be structural'],
  ];
  for (const [bad, f, detail] of checks) if (bad) errs.push(forbidden(child(path, f), detail));
  if (v.properties?.metadata) errs.push(forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  return errs;
}

/** Every field or items a junctor mentions must exist in the structural part too. */
function completeness(v: Schema, s: Schema | undefined, sPath: string, vPath: string): ErrorList {
  const errs: ErrorList = [];
  for (const j of JUNCTORS) (v[j] ?? []).forEach((n, i) => errs.push(...nestedCompleteness(n, s, sPath, index(child(vPath, j), i))));
  if (v.not) errs.push(...nestedCompleteness(v.not, s, sPath, child(vPath, 'not')));
  return errs;
}

function nestedCompleteness(v: Schema, s: Schema | undefined, sPath: string, vPath: string): ErrorList {
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs = completeness(v, s, sPath, vPath);
  const vItems = itemsSchema(v);
  if (vItems) errs.push(...nestedCompleteness(vItems, itemsSchema(s), child(sPath, 'items'), child(vPath, 'items')));
  for (const [k, f] of Object.entries(v.properties ?? {})) {
    const sp = key(child(sPath, 'properties'), k);
    const vp = key(child(vPath, 'properties'), k);
    const sf = s.properties?.[k];
    if (!sf) errs.push(required(sp, `because it is defined in ${vp}`));
    else errs.push(...nestedCompleteness(f, sf, sp, vp));
  }
  return errs;
}
