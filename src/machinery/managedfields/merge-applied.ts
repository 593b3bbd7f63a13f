/**
 * Merges an apply configuration into the live object (upstream typed Merge):
 * maps merge member by member, map lists merge item by item on their keys,
 * set lists take the union, atomic lists and maps and all scalars are
 * replaced. A null in the configuration clears the field, as it would once
 * decoded into the typed object.
 */
import type { JsonObject, JsonValue } from '../patch/json-value.js';
import { cloneJson, isJsonObject, setOwn } from '../patch/json-value.js';
import { atomicMapAt, pairedListElements } from './list-items.js';
import type { ListSchema } from './list-schema.js';
import { elementToFieldsV1Key, type PathElement } from './path-element.js';

export function mergeApplied(live: JsonObject, config: JsonObject, schema: ListSchema): JsonObject {
  return mergeMaps(live, config, [], schema);
}

function mergeMaps(live: JsonObject, config: JsonObject, names: string[], schema: ListSchema): JsonObject {
  const out = cloneJson(live) as JsonObject;
  for (const key of Object.keys(config)) {
    const value = config[key];
    if (value === null) {
      delete out[key];
      continue;
    }
    const current = Object.hasOwn(live, key) ? live[key] : undefined;
    setOwn(out, key, mergeValue(current, value, [...names, key], schema));
  }
  return out;
}

function mergeValue(live: JsonValue | undefined, config: JsonValue, names: string[], schema: ListSchema): JsonValue {
  if (live === undefined) return dropNulls(config);
  if (isJsonObject(live) && isJsonObject(config) && !atomicMapAt(schema, names)) return mergeMaps(live, config, names, schema);
  if (Array.isArray(live) && Array.isArray(config)) {
    const paired = pairedListElements(schema, names, live, config);
    if (paired) return mergeLists(live, config, paired, names, schema);
  }
  return dropNulls(config);
}

/**
 * Items only the live list has keep their place; items the configuration
 * names come in its order, each emitted just before the first live item it
 * shares with the configuration that follows it.
 */
function mergeLists(
  live: JsonValue[],
  config: JsonValue[],
  [liveIds, configIds]: [PathElement[], PathElement[]],
  names: string[],
  schema: ListSchema,
): JsonValue[] {
  const configIndex = new Map(configIds.map((pe, i) => [elementToFieldsV1Key(pe), i]));
  const liveById = new Map(liveIds.map((pe, i) => [elementToFieldsV1Key(pe), live[i]]));
  const out: JsonValue[] = [];
  let next = 0;
  const emitConfigThrough = (end: number) => {
    for (; next <= end; next++) {
      const current = liveById.get(elementToFieldsV1Key(configIds[next]));
      out.push(mergeItem(current, config[next], names, schema));
    }
  };
  liveIds.forEach((pe, i) => {
    const at = configIndex.get(elementToFieldsV1Key(pe));
    if (at === undefined) out.push(cloneJson(live[i]));
    else if (at >= next) emitConfigThrough(at);
  });
  emitConfigThrough(config.length - 1);
  return out;
}

function mergeItem(live: JsonValue | undefined, config: JsonValue, names: string[], schema: ListSchema): JsonValue {
  if (live !== undefined && isJsonObject(live) && isJsonObject(config) && !atomicMapAt(schema, names)) return mergeMaps(live, config, names, schema);
  return dropNulls(config);
}

function dropNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const key of Object.keys(v)) if (v[key] !== null) setOwn(out, key, dropNulls(v[key]));
  return out;
}
