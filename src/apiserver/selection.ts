import type { KubeObject } from '../api/object.js';
import type { KeyValue } from '../storage/storage.js';
import { decodeObject } from './registry/codec.js';
import { badRequest } from '../machinery/api-error.js';
import { parseFieldSelector, FieldSelectorParseError } from '../machinery/fields/index.js';
import { parseSelector, SelectorParseError } from '../machinery/labels/index.js';
import type { Filter } from './registry/registry-store.js';
import type { Strategy } from './registry/strategy.js';

export interface Selection {
  filter?: Filter;
  /** The same filter on a stored object, from its labels and selectable fields, kept per KeyValue (see selectionAttrs). */
  kvFilter?: (kv: KeyValue) => boolean;
  filtered: boolean;
}

/** What a selector looks at in an object: its labels and its resource's selectable fields (upstream's storeElement Labels and Fields). */
interface SelectionAttrs {
  labels: Record<string, string>;
  fields: Record<string, string>;
}

/*
 * Per strategy, the attributes of each stored KeyValue, parsed once: the
 * watch cache keeps the same KeyValue while its object is unchanged, so a
 * selector list from the cache tests each object without parsing it again
 * (and sends the stored bytes of those that pass). A storage read's fresh
 * KeyValues go with their entries.
 */
const attrsByStrategy = new WeakMap<Strategy, WeakMap<KeyValue, SelectionAttrs>>();

function selectionAttrs(strategy: Strategy, kv: KeyValue): SelectionAttrs {
  let byKv = attrsByStrategy.get(strategy);
  if (!byKv) attrsByStrategy.set(strategy, (byKv = new WeakMap()));
  let attrs = byKv.get(kv);
  if (!attrs) {
    const obj = decodeObject(kv);
    attrs = { labels: obj.metadata?.labels ?? {}, fields: strategy.selectableFields(obj) };
    byKv.set(kv, attrs);
  }
  return attrs;
}

/**
 * Builds the object filter of a list or watch from its label and field
 * selectors; selectors a resource does not support are a 400, as upstream.
 */
export function selectionFrom(query: URLSearchParams, strategy: Strategy, nameFromPath?: string): Selection {
  const labelText = query.get('labelSelector') ?? '';
  let fieldText = query.get('fieldSelector') ?? '';
  if (nameFromPath) fieldText = fieldText ? `${fieldText},metadata.name=${nameFromPath}` : `metadata.name=${nameFromPath}`;
  if (!labelText && !fieldText) return { filtered: false };
  let labels;
  let fields;
  try {
    labels = labelText ? parseSelector(labelText) : undefined;
  } catch (err) {
    if (err instanceof SelectorParseError) throw badRequest(err.message);
    throw err;
  }
  try {
    fields = fieldText ? parseFieldSelector(fieldText) : undefined;
  } catch (err) {
    if (err instanceof FieldSelectorParseError) throw badRequest(err.message);
    throw err;
  }
  if (fields) {
    const probe = strategy.selectableFields({ metadata: {} } as KubeObject);
    for (const r of fields.requirements()) {
      if (!(r.field in probe)) throw badRequest(`field label not supported: ${r.field}`);
    }
  }
  const filter: Filter = (obj) =>
    (!labels || labels.matches(obj.metadata?.labels ?? {})) && (!fields || fields.matches(strategy.selectableFields(obj)));
  const kvFilter = (kv: KeyValue) => {
    const attrs = selectionAttrs(strategy, kv);
    return (!labels || labels.matches(attrs.labels)) && (!fields || fields.matches(attrs.fields));
  };
  return { filter, kvFilter, filtered: true };
}
