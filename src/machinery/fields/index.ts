export { FieldSelectorParseError } from './field-selector-parse-error.js';
export { escapeValue, unescapeValue } from './escape.js';
export {
  FieldSelector,
  parseFieldSelector,
  fieldLabelNotSupportedMessage,
  type FieldOperator,
  type FieldRequirement,
  type Fields,
  type FieldTransformFunc,
} from './field-selector.js';
