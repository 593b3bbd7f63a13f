import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resource-info.js';
import { validateObject, validateObjectUpdate } from '../../api/validation/index.js';
import type { Strategy } from './strategy.js';

const GENERATION_GROUPS = new Set(['apps', 'batch', 'policy']);

/** The strategy every resource starts from; per-resource files override parts of it. */
export function defaultStrategy(info: ResourceInfo, overrides: Partial<Strategy> = {}): Strategy {
  const hasStatus = info.subresources.includes('status');
  const base: Strategy = {
    tracksGeneration: GENERATION_GROUPS.has(info.group),
    allowCreateOnUpdate: false,
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
    },
    prepareForUpdate(obj, old) {
      // the main resource cannot change status; the status subresource can
      if (hasStatus) {
        if (old.status === undefined) delete obj.status;
        else obj.status = old.status;
      }
    },
    validate: (obj) => validateObject(obj, info),
    validateUpdate: (obj, old) => validateObjectUpdate(obj, old, info),
    selectableFields: (obj) => metadataFields(obj, info),
    gracePeriodSeconds: () => 0,
    returnDeletedObject: false,
  };
  return { ...base, ...overrides };
}

export function metadataFields(obj: KubeObject, info: ResourceInfo): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata?.name ?? '' };
  if (info.namespaced) fields['metadata.namespace'] = obj.metadata?.namespace ?? '';
  return fields;
}
