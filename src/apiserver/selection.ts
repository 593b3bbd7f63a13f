import type { KubeObject } from '../api/object.js';
import { badRequest } from '../machinery/api-error.js';
import { parseFieldSelector, FieldSelectorParseError } from '../machinery/fields/index.js';
import { parseSelector, SelectorParseError } from '../machinery/labels/index.js';
import type { Filter } from './registry/registry-store.js';
import type { Strategy } from './registry/strategy.js';

export interface Selection {
  filter?: Filter;
  filtered: boolean;
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
  return { filter, filtered: true };
}
