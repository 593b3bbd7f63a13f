import { column } from './table-convertor.js';
import { FIELD_DOCS, type FieldDoc } from './descriptions.js';
import type { TableColumnDefinition } from './table-convertor.js';

/** Columns that most printers share. */

export const NAME_COLUMN = column('Name', 'string', FIELD_DOCS['ObjectMeta.name'], { format: 'name' });
export const AGE_COLUMN = column('Age', 'string', FIELD_DOCS['ObjectMeta.creationTimestamp']);
export const CONTAINERS_COLUMN = column('Containers', 'string', 'Names of each container in the template.', { priority: 1 });
export const IMAGES_COLUMN = column('Images', 'string', 'Images referenced by each container in the template.', { priority: 1 });

/** A column described by an API field's doc. */
export function fieldColumn(name: string, type: string, doc: FieldDoc, priority = 0): TableColumnDefinition {
  return column(name, type, FIELD_DOCS[doc], { priority });
}
