import type { Definitions } from '../../api/schema/openapi-schema.js';

/**
 * The OpenAPI definitions a served resource brings along when its kinds are
 * not built-in ones (custom resources): the names of its kind's and list
 * kind's definitions, and the definitions themselves.
 */
export interface ResourceModels {
  kind: string;
  list: string;
  definitions: Definitions;
}
