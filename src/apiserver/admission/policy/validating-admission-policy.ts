import type { ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { KubeObject } from '../../../api/object.js';
import type { Clock } from '../../../base/clock.js';
import { ApiError, type StatusReason } from '../../../machinery/api-error.js';
import { labelSelectorFromObject } from '../../../machinery/labels/index.js';
import { toCel } from '../../cel/cel-value.js';
import type { ApiRegistry } from '../../api-registry.js';
import type { AdmissionAttributes, Operation, ValidatingAdmission } from '../admission.js';
import type { CompiledPolicy } from './compiled-policy.js';
import { matchesResources, type MatchTarget } from './match-resources.js';
import { evaluatePolicy, type PolicyViolation } from './policy-evaluation.js';
import { PolicySource } from './policy-source.js';

const GROUP = 'admissionregistration.k8s.io';
const AUDIT_KEY = 'validation.policy.admission.k8s.io/validation_failure';
const REASON_CODES: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

interface Decision extends PolicyViolation {
  policy: string;
  binding: string;
  actions: string[];
}

/**
 * The ValidatingAdmissionPolicy admission plugin: every binding whose
 * policy matches the request (the policy's matchConstraints, then the
 * binding's matchResources) evaluates the policy's CEL validations, once
 * per param the binding selects; each failed validation is enforced by the
 * binding's validationActions: Deny rejects the request with upstream's
 * message and the validation's reason, Warn returns a Warning header, Audit
 * records the `validation.policy.admission.k8s.io/validation_failure`
 * annotation.
 */
export class ValidatingAdmissionPolicyPlugin implements ValidatingAdmission {
  readonly name = 'ValidatingAdmissionPolicy';
  private readonly source: PolicySource;

  constructor(
    private readonly registry: () => ApiRegistry,
    clock: Clock,
  ) {
    this.source = new PolicySource({
      policies: () => registry().lookup(GROUP, 'v1', 'validatingadmissionpolicies'),
      bindings: () => registry().lookup(GROUP, 'v1', 'validatingadmissionpolicybindings'),
      clock,
    });
  }

  handles(_operation: Operation): boolean {
    return true;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    // policies never judge their own kinds, so a bad policy can always be fixed
    if (attrs.resource.group === GROUP && attrs.resource.resource.startsWith('validatingadmissionpolic')) return;
    const pairs = await this.source.current();
    if (pairs.length === 0) return;
    const target = await this.target(attrs);
    let base: Record<string, unknown> | undefined;
    const decisions: Decision[] = [];
    for (const { policy, binding } of pairs) {
      if (!matchesResources(policy.policy.spec?.matchConstraints, target, true)) continue;
      if (!matchesResources(binding.spec?.matchResources, target, false)) continue;
      base ??= await this.variables(attrs, target);
      const actions = binding.spec?.validationActions ?? [];
      const record = (v: PolicyViolation) => decisions.push({ ...v, policy: policy.policy.metadata?.name ?? '', binding: binding.metadata?.name ?? '', actions });
      const params = await this.params(policy, binding, attrs);
      if ('error' in params) {
        if (policy.failurePolicy === 'Fail') record({ message: params.error, reason: 'Invalid', expressionIndex: -1 });
        continue;
      }
      for (const param of params.values) {
        const outcome = evaluatePolicy(policy, { ...base, params: param });
        if (!outcome.skipped) outcome.violations.forEach(record);
      }
    }
    this.enforce(attrs, decisions);
  }

  private enforce(attrs: AdmissionAttributes, decisions: Decision[]): void {
    for (const d of decisions) {
      if (d.actions.includes('Warn')) attrs.warn?.(`Validation failed for ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}': ${d.message}`);
    }
    const audited = decisions.filter((d) => d.actions.includes('Audit'));
    if (audited.length) {
      const value = audited.map((d) => ({ message: d.message, policy: d.policy, binding: d.binding, expressionIndex: d.expressionIndex, validationActions: d.actions }));
      attrs.addAuditAnnotation?.(AUDIT_KEY, JSON.stringify(value));
    }
    const denied = decisions.find((d) => d.actions.includes('Deny'));
    if (!denied) return;
    const message = `ValidatingAdmissionPolicy '${denied.policy}' with binding '${denied.binding}' denied request: ${denied.message}`;
    const { group, resource } = attrs.resource;
    const name = attrs.name || attrs.object?.metadata?.name || '';
    const reason = (REASON_CODES[denied.reason] ? denied.reason : 'Invalid') as StatusReason;
    throw new ApiError(REASON_CODES[reason] ?? 422, reason, `${group ? `${resource}.${group}` : resource} "${name}" is forbidden: ${message}`, {
      name,
      group: group || undefined,
      kind: resource,
      causes: [{ message } as { reason: string; message: string }],
    });
  }

  private async target(attrs: AdmissionAttributes): Promise<MatchTarget> {
    const info = this.registry().lookup(attrs.resource.group, attrs.resource.version, attrs.resource.resource)?.info;
    const namespaced = info?.namespaced ?? attrs.namespace !== '';
    if (attrs.resource.group === '' && attrs.resource.resource === 'namespaces') {
      const ns = attrs.object ?? attrs.oldObject;
      return { attrs, namespaced, namespaceLabels: (ns?.metadata?.labels ?? {}) as Record<string, string> };
    }
    if (!namespaced) return { attrs, namespaced };
    const ns = await this.namespace(attrs.namespace);
    return { attrs, namespaced, namespaceLabels: (ns?.metadata?.labels ?? {}) as Record<string, string> };
  }

  private async namespace(name: string): Promise<KubeObject | undefined> {
    try {
      return await this.registry().namespaces.get('', name);
    } catch {
      return undefined;
    }
  }

  private async variables(attrs: AdmissionAttributes, target: MatchTarget): Promise<Record<string, unknown>> {
    const namespaceObject = target.namespaced ? await this.namespace(attrs.namespace) : undefined;
    const request = {
      kind: attrs.kind,
      resource: attrs.resource,
      subResource: attrs.subresource,
      requestKind: attrs.kind,
      requestResource: attrs.resource,
      requestSubResource: attrs.subresource,
      name: attrs.name || attrs.object?.metadata?.name || '',
      namespace: attrs.namespace,
      operation: attrs.operation,
      userInfo: { username: attrs.user.name, uid: attrs.user.uid ?? '', groups: attrs.user.groups, extra: attrs.user.extra ?? {} },
      dryRun: attrs.dryRun,
    };
    const cel = (v: unknown) => (v === undefined ? null : toCel(v).value);
    return {
      object: attrs.operation === 'DELETE' ? null : cel(attrs.object),
      oldObject: attrs.operation === 'CREATE' ? null : cel(attrs.oldObject),
      request: cel(request),
      namespaceObject: cel(namespaceObject),
      params: null,
    };
  }

  /** The params a binding selects for this request: `[null]` without paramKind; an error text when misconfigured. */
  private async params(p: CompiledPolicy, binding: ValidatingAdmissionPolicyBinding, attrs: AdmissionAttributes): Promise<{ values: unknown[] } | { error: string }> {
    const kind = p.policy.spec?.paramKind;
    const ref = binding.spec?.paramRef;
    if (!kind) return { values: [null] };
    if (!ref) return { values: [null] };
    const [group, version] = kind.apiVersion?.includes('/') ? kind.apiVersion.split('/') : ['', kind.apiVersion ?? ''];
    const store = this.registry()
      .all()
      .find((s) => s.info.group === group && s.info.version === version && s.info.kind === kind.kind);
    if (!store) return { error: `failed to configure binding: paramKind kind \`${kind.kind}\` not known` };
    const namespace = store.info.namespaced ? (ref.namespace ?? attrs.namespace) : '';
    let found: KubeObject[] = [];
    if (ref.name) {
      try {
        found = [await store.get(namespace, ref.name)];
      } catch {
        found = [];
      }
    } else if (ref.selector) {
      const selector = labelSelectorFromObject(ref.selector);
      found = (await store.list(namespace, {})).items.filter((o) => selector.matches((o.metadata?.labels ?? {}) as Record<string, string>));
    }
    if (found.length === 0) {
      if (ref.parameterNotFoundAction === 'Allow') return { values: [] };
      return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
    }
    return { values: found.map((o) => toCel(o).value) };
  }
}
