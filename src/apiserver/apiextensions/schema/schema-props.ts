import { child, forbidden, index, invalid, key, notSupported, required, type ErrorList } from '../../../api/validation/errors.js';
import { additionalSchema, itemsSchema, type Schema } from './json-schema.js';

/**
 * The OpenAPI v3 subset a CRD schema may use, as upstream's
 * ValidateCustomResourceDefinitionOpenAPISchema: no $ref, definitions,
 * patternProperties, dependencies, additionalItems or tuple items; no
 * uniqueItems (quadratic); properties and additionalProperties are exclusive;
 * the x-kubernetes-list/map markers are consistent.
 */

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

export function validateSchemaProps(s: Schema, path: string): ErrorList {
  const errs: ErrorList = [];
  const raw = s as Record<string, unknown>;
  const unsupported: [string, string][] = [
    ['id', 'id is not supported'],
    ['additionalItems', 'additionalItems is not supported'],
    ['patternProperties', 'patternProperties is not supported'],
    ['definitions', 'definitions is not supported'],
    ['dependencies', 'dependencies is not supported'],
    ['$ref', '$ref is not supported'],
  ];
  for (const [f, detail] of unsupported) if (raw[f] !== undefined) errs.push(forbidden(child(path, f), detail));
  if (s.type === 'null') errs.push(forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  else if (s.type && !TYPES.includes(s.type)) errs.push(notSupported(child(path, 'type'), s.type, TYPES));
  if (Array.isArray(s.items)) errs.push(forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (s.uniqueItems === true) errs.push(forbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (s.additionalProperties !== undefined && Object.keys(s.properties ?? {}).length > 0) {
    if (s.additionalProperties === false || additionalSchema(s)) {
      errs.push(forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
  }
  errs.push(...listAndMapMarkers(s, path));

  const ap = additionalSchema(s);
  if (ap) errs.push(...validateSchemaProps(ap, child(path, 'additionalProperties')));
  for (const [k, v] of Object.entries(s.properties ?? {})) errs.push(...validateSchemaProps(v, key(child(path, 'properties'), k)));
  if (s.not) errs.push(...validateSchemaProps(s.not, child(path, 'not')));
  for (const j of ['allOf', 'oneOf', 'anyOf'] as const) (s[j] ?? []).forEach((v, i) => errs.push(...validateSchemaProps(v, index(child(path, j), i))));
  if (itemsSchema(s)) errs.push(...validateSchemaProps(itemsSchema(s)!, child(path, 'items')));
  return errs;
}

function listAndMapMarkers(s: Schema, path: string): ErrorList {
  const errs: ErrorList = [];
  const listType = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  if (listType !== undefined) {
    if (!['atomic', 'map', 'set'].includes(listType)) errs.push(notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'map', 'set']));
    else if (s.type !== 'array') errs.push(invalid(child(path, 'type'), s.type ?? '', 'must be array if x-kubernetes-list-type is specified'));
    if (listType === 'map' && keys.length === 0) {
      errs.push(required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    }
  }
  if (keys.length > 0 && listType !== 'map') {
    errs.push(invalid(child(path, 'x-kubernetes-list-type'), listType ?? '', 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined) {
    if (!['atomic', 'granular'].includes(mapType)) errs.push(notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
    else if (s.type !== 'object') errs.push(invalid(child(path, 'type'), s.type ?? '', 'must be object if x-kubernetes-map-type is specified'));
  }
  return errs;
}
