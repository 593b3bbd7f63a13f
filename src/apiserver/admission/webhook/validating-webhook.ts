import type { AdmissionAttributes, Operation, ValidatingAdmission } from '../admission.js';
import { WebhookDispatcher, type WebhookAdmissionDeps } from './webhook-dispatcher.js';

/**
 * ValidatingAdmissionWebhook: calls every matching validating webhook in
 * parallel, as upstream; the first rejection in webhook order answers the
 * request.
 */
export class ValidatingAdmissionWebhook implements ValidatingAdmission {
  readonly name = 'ValidatingAdmissionWebhook';
  private readonly dispatcher: WebhookDispatcher;

  constructor(private readonly deps: WebhookAdmissionDeps) {
    this.dispatcher = new WebhookDispatcher(deps);
  }

  handles(_operation: Operation): boolean {
    return true;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    await this.deps.webhooks.synced();
    const invocations = await this.dispatcher.invocations(this.deps.webhooks.validating, attrs);
    const outcomes = await Promise.allSettled(invocations.map((inv) => this.dispatcher.call(inv, attrs, false)));
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  }
}
