export { SelectorParseError } from './selector-parse-error.js';
export { Requirement, type Labels, type Operator } from './requirement.js';
export { everything, nothing, selectorFromRequirements, selectorFromSet, type Selector } from './selector.js';
export { parseSelector } from './parse-selector.js';
export { labelSelectorFromObject, labelSelectorAsString, formatLabelSelector } from './label-selector-from-object.js';
export { isQualifiedName, isValidLabelValue, isDns1123Subdomain } from './label-validation.js';
