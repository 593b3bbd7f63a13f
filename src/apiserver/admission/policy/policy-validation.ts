import type { MatchResources, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import { child, duplicate, forbidden, index, invalid, notSupported, required, type ErrorList } from '../../../api/validation/errors.js';
import { compileExpression } from './compiled-policy.js';

const REASONS = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const ACTIONS = ['Deny', 'Warn', 'Audit'];
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

function checkExpression(expression: string | undefined, want: 'bool' | 'string' | 'dyn', path: string, errs: ErrorList): void {
  if (!expression?.trim()) {
    errs.push(required(path, 'expression is not specified'));
    return;
  }
  const c = compileExpression(expression, want);
  if ('error' in c) errs.push(invalid(path, expression, `compilation failed: ${c.error}`));
}

function validateMatchResources(m: MatchResources | undefined, path: string, rulesRequired: boolean, errs: ErrorList): void {
  if (!m) {
    if (rulesRequired) errs.push(required(path));
    return;
  }
  if (rulesRequired && !(m.resourceRules ?? []).length) errs.push(required(child(path, 'resourceRules')));
  if (m.matchPolicy !== undefined && !['Exact', 'Equivalent'].includes(m.matchPolicy)) errs.push(notSupported(child(path, 'matchPolicy'), m.matchPolicy, ['Equivalent', 'Exact']));
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy, as upstream validates it (expressions must compile). */
export function validateValidatingAdmissionPolicy(p: ValidatingAdmissionPolicy): ErrorList {
  const errs: ErrorList = [];
  const spec = p.spec ?? {};
  if (spec.failurePolicy !== undefined && !['Fail', 'Ignore'].includes(spec.failurePolicy)) errs.push(notSupported('spec.failurePolicy', spec.failurePolicy, ['Fail', 'Ignore']));
  if (spec.paramKind) {
    if (!spec.paramKind.apiVersion) errs.push(required('spec.paramKind.apiVersion'));
    if (!spec.paramKind.kind) errs.push(required('spec.paramKind.kind'));
  }
  validateMatchResources(spec.matchConstraints, 'spec.matchConstraints', true, errs);
  if (!(spec.validations ?? []).length && !(spec.auditAnnotations ?? []).length) {
    errs.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
  }
  (spec.validations ?? []).forEach((v, i) => {
    const path = index('spec.validations', i);
    checkExpression(v.expression, 'bool', child(path, 'expression'), errs);
    if (v.messageExpression !== undefined) checkExpression(v.messageExpression, 'string', child(path, 'messageExpression'), errs);
    if (v.message?.includes('\n')) errs.push(invalid(child(path, 'message'), v.message, 'message must not contain line breaks'));
    if (v.reason !== undefined && !REASONS.includes(v.reason)) errs.push(notSupported(child(path, 'reason'), v.reason, REASONS));
  });
  const names = new Set<string>();
  (spec.matchConditions ?? []).forEach((m, i) => {
    const path = index('spec.matchConditions', i);
    if (!m.name) errs.push(required(child(path, 'name')));
    else if (names.has(m.name)) errs.push(duplicate(child(path, 'name'), m.name));
    names.add(m.name);
    checkExpression(m.expression, 'bool', child(path, 'expression'), errs);
  });
  (spec.variables ?? []).forEach((v, i) => {
    const path = index('spec.variables', i);
    if (!v.name) errs.push(required(child(path, 'name')));
    else if (!CEL_IDENTIFIER.test(v.name)) errs.push(invalid(child(path, 'name'), v.name, 'name is not a valid CEL identifier'));
    checkExpression(v.expression, 'dyn', child(path, 'expression'), errs);
  });
  return errs;
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding, as upstream validates it. */
export function validateValidatingAdmissionPolicyBinding(b: ValidatingAdmissionPolicyBinding): ErrorList {
  const errs: ErrorList = [];
  const spec = b.spec ?? {};
  if (!spec.policyName) errs.push(required('spec.policyName'));
  const actions = spec.validationActions ?? [];
  if (actions.length === 0) errs.push(required('spec.validationActions', 'at least one validation action is required'));
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!ACTIONS.includes(a)) errs.push(notSupported(index('spec.validationActions', i), a, ACTIONS));
    if (seen.has(a)) errs.push(duplicate(index('spec.validationActions', i), a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(invalid('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  const ref = spec.paramRef;
  if (ref) {
    if (ref.name && ref.selector) errs.push(forbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
    if (!ref.name && !ref.selector) errs.push(required('spec.paramRef', 'one of name or selector must be specified'));
    if (!ref.parameterNotFoundAction) errs.push(required('spec.paramRef.parameterNotFoundAction'));
    else if (!['Allow', 'Deny'].includes(ref.parameterNotFoundAction)) errs.push(notSupported('spec.paramRef.parameterNotFoundAction', ref.parameterNotFoundAction, ['Allow', 'Deny']));
  }
  validateMatchResources(spec.matchResources, 'spec.matchResources', false, errs);
  return errs;
}
