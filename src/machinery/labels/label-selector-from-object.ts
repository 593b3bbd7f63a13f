import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { Requirement, type Operator } from './requirement.js';
import { SelectorParseError } from './selector-parse-error.js';
import { everything, nothing, selectorFromRequirements, type Selector } from './selector.js';

const EXPRESSION_OPERATORS: Readonly<Record<string, Operator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * metav1.LabelSelectorAsSelector: matchLabels and matchExpressions ANDed.
 * An empty selector (`{}`) matches everything; a null or absent one matches
 * nothing. Throws SelectorParseError for invalid keys, values or operators.
 */
export function labelSelectorFromObject(sel: LabelSelector | null | undefined): Selector {
  if (sel === null || sel === undefined) return nothing();
  const matchLabels = Object.entries(sel.matchLabels ?? {});
  const expressions = sel.matchExpressions ?? [];
  if (matchLabels.length + expressions.length === 0) return everything();
  const requirements = matchLabels.map(([k, v]) => Requirement.create(k, '=', [v]));
  for (const expr of expressions) {
    const op = Object.hasOwn(EXPRESSION_OPERATORS, expr.operator) ? EXPRESSION_OPERATORS[expr.operator] : undefined;
    if (!op) throw new SelectorParseError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    requirements.push(Requirement.create(expr.key, op, expr.values ?? []));
  }
  return selectorFromRequirements(requirements);
}

/**
 * The selector's string form, as upstream puts into `status.selector` of a
 * scale subresource: "" for both the empty and the null selector.
 */
export function labelSelectorAsString(sel: LabelSelector | null | undefined): string {
  return labelSelectorFromObject(sel).toString();
}

/** kubectl's FormatLabelSelector: `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(sel: LabelSelector | null | undefined): string {
  try {
    return labelSelectorAsString(sel) || '<none>';
  } catch (err) {
    if (err instanceof SelectorParseError) return '<error>';
    throw err;
  }
}
