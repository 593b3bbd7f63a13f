import type { MutatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import type { KubeObject } from '../../../api/object.js';
import { applyDefaults } from '../../../api/defaults/index.js';
import { internalError } from '../../../machinery/api-error.js';
import { applyJsonPatch } from '../../../machinery/patch/json-patch.js';
import type { AdmissionAttributes, MutatingAdmission, Operation } from '../admission.js';
import { WebhookDispatcher, type Invocation, type WebhookAdmissionDeps } from './webhook-dispatcher.js';

/**
 * MutatingAdmissionWebhook: calls the matching mutating webhooks one after
 * another, applying each JSONPatch answer to the object before the next
 * sees it. A webhook with reinvocationPolicy IfNeeded is called once more
 * when a later webhook changed the object after it ran (upstream's single
 * reinvocation round).
 */
export class MutatingAdmissionWebhook implements MutatingAdmission {
  readonly name = 'MutatingAdmissionWebhook';
  private readonly dispatcher: WebhookDispatcher;

  constructor(private readonly deps: WebhookAdmissionDeps) {
    this.dispatcher = new WebhookDispatcher(deps);
  }

  handles(_operation: Operation): boolean {
    return true;
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    await this.deps.webhooks.synced();
    const invocations = await this.dispatcher.invocations(this.deps.webhooks.mutating, attrs);
    if (invocations.length === 0) return;
    // webhooks see the object defaulted, as upstream decodes it before admission
    const info = this.deps.registry.lookup(attrs.resource.group, attrs.resource.version, attrs.resource.resource)?.info;
    if (attrs.object && info && !attrs.subresource) applyDefaults(attrs.object, info);
    const seenAfter = new Map<Invocation<MutatingWebhook>, string>();
    for (const [index, inv] of invocations.entries()) {
      await this.invoke(inv, attrs, 0, index);
      if (inv.hook.webhook.reinvocationPolicy === 'IfNeeded') seenAfter.set(inv, JSON.stringify(attrs.object ?? null));
    }
    const final = JSON.stringify(attrs.object ?? null);
    for (const [inv, seen] of seenAfter) {
      if (seen !== final) await this.invoke(inv, attrs, 1, invocations.indexOf(inv));
    }
  }

  private async invoke(inv: Invocation<MutatingWebhook>, attrs: AdmissionAttributes, round: number, index: number): Promise<void> {
    const result = await this.dispatcher.call(inv, attrs, true);
    const mutated = Boolean(result?.patch !== undefined && !(Array.isArray(result.patch) && result.patch.length === 0));
    // upstream's audit annotation of every mutating webhook call
    if (result) attrs.addAuditAnnotation?.(`mutation.webhook.admission.k8s.io/round_${round}_index_${index}`, JSON.stringify({ configuration: inv.hook.configuration, webhook: inv.hook.webhook.name, mutated }));
    if (!result || !mutated) return;
    const name = inv.hook.webhook.name;
    if (!attrs.object) throw internalError(`admission webhook "${name}" attempted to modify the object, which is not supported for this operation`);
    let patched: KubeObject;
    try {
      const viewed = await this.dispatcher.viewed(attrs.object, inv);
      patched = applyJsonPatch(viewed, result.patch) as KubeObject;
    } catch (err) {
      throw internalError(err instanceof Error ? err.message : String(err));
    }
    replaceContents(attrs.object, await this.dispatcher.back(patched, attrs));
  }
}

/** The store holds the object by reference: the patched value replaces its contents in place. */
function replaceContents(target: KubeObject, source: KubeObject): void {
  for (const key of Object.keys(target)) delete (target as Record<string, unknown>)[key];
  Object.assign(target, source);
}
