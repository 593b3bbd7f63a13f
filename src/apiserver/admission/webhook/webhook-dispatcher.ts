import { randomUUID } from 'node:crypto';
import type { MutatingWebhook, ValidatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import type { KubeObject } from '../../../api/object.js';
import type { AdmissionRuleWithOperations } from '../../../api/validation/admission-registration.js';
import { ApiError, badRequest, internalError, type StatusReason } from '../../../machinery/api-error.js';
import type { Logger } from '../../../machinery/logger.js';
import type { ApiRegistry } from '../../api-registry.js';
import { CelCompileError, CelCostError, CelEvalError, compileCel, type CelProgram } from '../../cel/cel-program.js';
import { toCel } from '../../cel/cel-value.js';
import { resolveClientConfig } from '../../outbound/client-config.js';
import { postJson } from '../../outbound/https-json-client.js';
import type { AdmissionAttributes } from '../admission.js';
import { admissionReview, InvalidAdmissionResponse, verifyAdmissionResponse, type AdmissionResult } from './admission-review.js';
import type { ConfiguredWebhook, WebhookConfigurations } from './webhook-configurations.js';
import { matchingTarget, namespaceMatches, objectMatches, type RuleTarget } from './webhook-match.js';

/** Converts an object to another served version of its resource (CRD conversion); absent: only apiVersion changes. */
export type ObjectConverter = (obj: KubeObject, group: string, version: string) => Promise<KubeObject>;

export interface WebhookAdmissionDeps {
  registry: ApiRegistry;
  webhooks: WebhookConfigurations;
  logger?: Logger;
  convert?: ObjectConverter;
}

type Webhook = MutatingWebhook | ValidatingWebhook;

/** A webhook that will be called for this request, and the version it sees the object in. */
export interface Invocation<W extends Webhook = Webhook> {
  hook: ConfiguredWebhook<W>;
  target: RuleTarget;
  kind: { group: string; version: string; kind: string };
}

/** Resources no admission webhook is ever called for, as upstream (so a bad webhook can always be removed). */
const EXEMPT = new Set(['mutatingwebhookconfigurations', 'validatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings']);

/**
 * What both webhook admission plugins share: deciding which webhooks a
 * request goes to (rules with matchPolicy, namespace and object selectors,
 * dry run), calling one, and turning its answer or failure into upstream's
 * errors under its failurePolicy.
 */
export class WebhookDispatcher {
  constructor(private readonly deps: WebhookAdmissionDeps) {}

  async invocations<W extends Webhook>(hooks: readonly ConfiguredWebhook<W>[], attrs: AdmissionAttributes): Promise<Invocation<W>[]> {
    if (hooks.length === 0) return [];
    if (attrs.resource.group === 'admissionregistration.k8s.io' && EXEMPT.has(attrs.resource.resource)) return [];
    const request: RuleTarget = { ...attrs.resource, subresource: attrs.subresource };
    let namespaceLabels: Promise<Record<string, string> | undefined> | undefined;
    const out: Invocation<W>[] = [];
    for (const hook of hooks) {
      const w = hook.webhook;
      const candidates = w.matchPolicy === 'Exact' ? [request] : [request, ...this.equivalents(request)];
      const target = matchingTarget({ rules: w.rules as AdmissionRuleWithOperations[] | undefined }, attrs, candidates);
      if (!target) continue;
      if (w.namespaceSelector && attrs.namespace && !(attrs.resource.group === '' && attrs.resource.resource === 'namespaces')) {
        namespaceLabels ??= this.namespaceLabels(attrs.namespace);
      }
      if (!namespaceMatches(w.namespaceSelector, attrs, namespaceLabels ? await namespaceLabels : undefined)) continue;
      if (!objectMatches(w.objectSelector, attrs)) continue;
      if (!this.conditionsMatch(w, attrs)) continue;
      if (attrs.dryRun && (w.sideEffects === 'Unknown' || w.sideEffects === 'Some')) throw badRequest(`admission webhook "${w.name}" does not support dry run`);
      const kind = target.version === request.version && target.group === request.group ? attrs.kind : { ...attrs.kind, group: target.group, version: target.version };
      out.push({ hook, target, kind });
    }
    return out;
  }

  /** The object as the invocation's version shows it. */
  async viewed(obj: KubeObject | undefined, inv: Invocation): Promise<KubeObject | undefined> {
    if (!obj) return undefined;
    const apiVersion = inv.target.group ? `${inv.target.group}/${inv.target.version}` : inv.target.version;
    if (obj.apiVersion === apiVersion || inv.kind.kind !== obj.kind) return obj;
    if (this.deps.convert) return this.deps.convert(obj, inv.target.group, inv.target.version);
    return { ...obj, apiVersion };
  }

  /** Converts a patched object back to the request's version. */
  async back(obj: KubeObject, attrs: AdmissionAttributes): Promise<KubeObject> {
    const apiVersion = attrs.kind.group ? `${attrs.kind.group}/${attrs.kind.version}` : attrs.kind.version;
    if (obj.apiVersion === apiVersion || !obj.apiVersion) return obj;
    if (this.deps.convert) return this.deps.convert(obj, attrs.kind.group, attrs.kind.version);
    return { ...obj, apiVersion };
  }

  /**
   * Calls one webhook; undefined when the call failed and its failurePolicy
   * is Ignore. A denial, or a failure under Fail, throws upstream's error.
   */
  async call(inv: Invocation, attrs: AdmissionAttributes, mutating: boolean): Promise<AdmissionResult | undefined> {
    const w = inv.hook.webhook;
    const uid = randomUUID();
    let result: AdmissionResult;
    try {
      const [object, oldObject] = await Promise.all([this.viewed(attrs.object, inv), this.viewed(attrs.oldObject, inv)]);
      const review = admissionReview(uid, attrs, { kind: inv.kind, resource: { group: inv.target.group, version: inv.target.version, resource: inv.target.resource }, subresource: inv.target.subresource }, { object, oldObject });
      if (!(w.admissionReviewVersions ?? []).includes('v1')) throw new CallFailure(`webhook does not accept v1 AdmissionReview`);
      const timeoutSeconds = w.timeoutSeconds ?? 10;
      let target;
      try {
        target = await resolveClientConfig(this.deps.registry, w.clientConfig, timeoutSeconds);
      } catch (err) {
        throw new CallFailure(`failed to call webhook: ${errorText(err)}`);
      }
      let body: unknown;
      try {
        body = await postJson(target, review, timeoutSeconds * 1000);
      } catch (err) {
        throw new CallFailure(`failed to call webhook: ${errorText(err)}`);
      }
      try {
        result = verifyAdmissionResponse(uid, mutating, body);
      } catch (err) {
        if (err instanceof InvalidAdmissionResponse) throw new CallFailure(`received invalid webhook response: ${err.message}`);
        throw err;
      }
    } catch (err) {
      if (!(err instanceof CallFailure)) throw err;
      const message = `failed calling webhook "${w.name}": ${err.message}`;
      if ((w.failurePolicy ?? 'Fail') === 'Ignore') {
        this.deps.logger?.warn('admission webhook failed; ignored by its failurePolicy', { webhook: w.name, error: message });
        return undefined;
      }
      throw internalError(message);
    }
    for (const warning of result.warnings) attrs.warn?.(warning);
    // the webhook's own audit annotations, keyed under its name as upstream
    for (const [key, value] of Object.entries(result.auditAnnotations)) attrs.addAuditAnnotation?.(`${w.name}/${key}`, String(value));
    if (!result.allowed) throw denial(w.name, result.status);
    return result;
  }

  /**
   * The webhook's matchConditions (CEL over object, oldObject and request):
   * any false skips it; an error fails the request under Fail and skips the
   * webhook under Ignore, as upstream.
   */
  private conditionsMatch(w: Webhook, attrs: AdmissionAttributes): boolean {
    const conditions = w.matchConditions ?? [];
    if (conditions.length === 0) return true;
    const cel = (v: unknown) => (v === undefined ? null : toCel(v).value);
    const vars = {
      object: attrs.operation === 'DELETE' ? null : cel(attrs.object),
      oldObject: attrs.operation === 'CREATE' ? null : cel(attrs.oldObject),
      request: cel({
        kind: attrs.kind,
        resource: attrs.resource,
        subResource: attrs.subresource,
        name: attrs.name || attrs.object?.metadata?.name || '',
        namespace: attrs.namespace,
        operation: attrs.operation,
        userInfo: { username: attrs.user.name, uid: attrs.user.uid ?? '', groups: attrs.user.groups, extra: attrs.user.extra ?? {} },
        dryRun: attrs.dryRun,
      }),
    };
    for (const c of conditions) {
      let value: unknown;
      try {
        value = compiled(c.expression).evaluate(vars);
      } catch (err) {
        if (!(err instanceof CelCompileError || err instanceof CelEvalError || err instanceof CelCostError)) throw err;
        if ((w.failurePolicy ?? 'Fail') === 'Ignore') return false;
        throw internalError(`failed calling webhook "${w.name}": failed evaluating match conditions, failing closed: match condition '${c.name}': ${err.message}`);
      }
      if (value !== true) return false;
    }
    return true;
  }

  private equivalents(request: RuleTarget): RuleTarget[] {
    return this.deps.registry
      .resources()
      .filter((r) => r.group === request.group && r.resource === request.resource && r.version !== request.version)
      .map((r) => ({ group: r.group, version: r.version, resource: r.resource, subresource: request.subresource }));
  }

  private async namespaceLabels(namespace: string): Promise<Record<string, string> | undefined> {
    const ns = await this.deps.registry.namespaces.get('', namespace).catch(() => undefined);
    return ns?.metadata?.labels;
  }
}

const MATCH_CONDITION_VARIABLES = { object: 'dyn', oldObject: 'dyn', request: 'dyn' } as const;
const programs = new Map<string, CelProgram>();

/** Match conditions compile once per expression (a bad one throws its compile error each time). */
function compiled(expression: string): CelProgram {
  let p = programs.get(expression);
  if (!p) {
    p = compileCel(expression, MATCH_CONDITION_VARIABLES, 'bool');
    if (programs.size > 1000) programs.clear();
    programs.set(expression, p);
  }
  return p;
}

/** A webhook call that produced no usable answer; its text follows `failed calling webhook "x": `. */
class CallFailure extends Error {}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Upstream's webhookerrors.ToStatusErr: the webhook's Status with the message prefixed by who denied it. */
export function denial(name: string, status: AdmissionResult['status']): ApiError {
  const deniedBy = `admission webhook "${name}" denied the request`;
  const s = status ?? {};
  const code = typeof s.code === 'number' && s.code >= 400 ? s.code : 400;
  const message = s.message ? `${deniedBy}: ${s.message}` : s.reason ? `${deniedBy}: ${s.reason}` : `${deniedBy} without explanation`;
  const details = typeof s.details === 'object' && s.details !== null ? (s.details as ApiError['details']) : undefined;
  return new ApiError(code, (s.reason ?? 'Unknown') as StatusReason, message, details);
}
