/**
 * Label key and value syntax (upstream's IsQualifiedName and
 * IsValidLabelValue): the same checks object validation uses, worded as
 * upstream words them.
 */
export {
  EMPTY_ERROR,
  isDNS1123Subdomain as isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  maxLenError,
  regexError,
} from '../../api/validation/name.js';
