import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { child, forbidden, index, invalid, required, type ErrorList } from './errors.js';
import { isValidLabelValue } from './name.js';
import { validateLabelName, validateLabels } from './object-meta.js';

/** Upstream's ValidateLabelSelector (strict: label values in selectors must be valid). */
export function validateLabelSelector(selector: LabelSelector | undefined, path: string): ErrorList {
  if (!selector) return [];
  const errs: ErrorList = [];
  (selector.matchExpressions ?? []).forEach((req, i) => {
    const p = index(child(path, 'matchExpressions'), i);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(required(child(p, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(forbidden(child(p, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalid(child(p, 'operator'), req.operator, 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(req.key, child(p, 'key')));
    values.forEach((v, j) => {
      for (const msg of isValidLabelValue(v)) errs.push(invalid(index(child(p, 'values'), j), v, msg));
    });
  });
  errs.push(...validateLabels(selector.matchLabels, child(path, 'matchLabels')));
  return errs;
}

export function isEmptySelector(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0;
}

/** Whether a (valid) selector selects the given labels; an empty selector selects everything. */
export function selectorMatches(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, req.key);
    const values = req.values ?? [];
    const ok =
      req.operator === 'In' ? has && values.includes(l[req.key]) :
      req.operator === 'NotIn' ? !has || !values.includes(l[req.key]) :
      req.operator === 'Exists' ? has :
      req.operator === 'DoesNotExist' ? !has : false;
    if (!ok) return false;
  }
  return true;
}
