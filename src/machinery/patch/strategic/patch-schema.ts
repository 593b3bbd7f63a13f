import { fieldPatchMeta, fieldTypeName, isMapOfObjects, schemaTypeName, type FieldPatchMeta } from '../../../api/schema/patch-metadata.js';

/** What strategic merge patch needs to know about one field. */
export interface FieldLookup {
  /** The schema of the field's value (of its elements, for a list). */
  schema: PatchSchema;
  /** `merge`, `replace` or empty, after `retainKeys` is taken apart. */
  patchStrategy: string;
  patchMergeKey: string;
}

/**
 * The schema of one JSON object in a patched document. Upstream reads the
 * Go struct tags; we read the patch metadata table and the type graph. An
 * unknown field yields an empty schema, so lists below it are replaced and
 * maps merged, as JSON merge patch would.
 */
export interface PatchSchema {
  /** The type name, for messages; empty when unknown. */
  readonly name: string;
  lookup(field: string): FieldLookup;
}

const UNKNOWN: PatchSchema = {
  name: '',
  lookup: () => ({ schema: UNKNOWN, patchStrategy: '', patchMergeKey: '' }),
};

/** A map whose values are all of one type: every key leads to that type. */
function mapOf(value: PatchSchema): PatchSchema {
  return { name: `map[string]${value.name}`, lookup: () => ({ schema: value, patchStrategy: '', patchMergeKey: '' }) };
}

function structSchema(typeName: string): PatchSchema {
  return {
    name: typeName,
    lookup(field) {
      const child = fieldTypeName(typeName, field);
      let schema = child === undefined ? UNKNOWN : structSchema(child);
      if (child !== undefined && isMapOfObjects(typeName, field)) schema = mapOf(schema);
      const meta = fieldPatchMeta(typeName, field);
      return { schema, patchStrategy: strategyOf(meta), patchMergeKey: meta?.patchMergeKey ?? '' };
    },
  };
}

/**
 * Splits off `retainKeys` (it acts through the `$retainKeys` directive of
 * the patch, not through the strategy), leaving `merge`, `replace` or ''.
 */
function strategyOf(meta: FieldPatchMeta | undefined): string {
  const parts = (meta?.patchStrategy ?? '').split(',').filter((s) => s !== '' && s !== 'retainKeys');
  return parts[0] ?? '';
}

/** The schema of a kind's objects; an empty schema for kinds without one. */
export function schemaForKind(kind: { group: string; version: string; kind: string }): PatchSchema {
  const name = schemaTypeName(kind.group, kind.version, kind.kind);
  return name === undefined ? UNKNOWN : structSchema(name);
}

/** The schema that knows nothing: lists replace, maps merge. */
export const UNKNOWN_SCHEMA = UNKNOWN;
