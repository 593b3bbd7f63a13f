import type { MutatingWebhook, MutatingWebhookConfiguration, ValidatingWebhook, ValidatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import type { KubeObject } from '../../../api/object.js';
import type { Logger } from '../../../machinery/logger.js';
import type { ApiRegistry } from '../../api-registry.js';
import { runStoreInformer } from '../../registry/store-informer.js';

/** One webhook with the configuration it came from. */
export interface ConfiguredWebhook<W> {
  configuration: string;
  webhook: W;
}

const GROUP = 'admissionregistration.k8s.io';

/**
 * The admission webhooks in memory, kept current by the API server's own
 * watches on both configuration kinds (upstream's configuration managers
 * over informers). Webhooks are ordered by configuration name, then as
 * listed. Admission waits for the first list so no write slips past a
 * configuration that already exists.
 */
export class WebhookConfigurations {
  private mutatingHooks: readonly ConfiguredWebhook<MutatingWebhook>[] = [];
  private validatingHooks: readonly ConfiguredWebhook<ValidatingWebhook>[] = [];
  private readonly objects = { mutating: new Map<string, KubeObject>(), validating: new Map<string, KubeObject>() };
  private readonly syncs: Promise<void>[] = [];
  private readonly marks: (() => void)[] = [];
  private running: Promise<void>[] = [];
  private started = false;

  constructor() {
    for (let i = 0; i < 2; i++) this.syncs.push(new Promise<void>((r) => this.marks.push(r)));
  }

  get mutating(): readonly ConfiguredWebhook<MutatingWebhook>[] {
    return this.mutatingHooks;
  }

  get validating(): readonly ConfiguredWebhook<ValidatingWebhook>[] {
    return this.validatingHooks;
  }

  /** Resolves once both kinds have been listed (at once when the watches were never started, e.g. in unit tests). */
  async synced(): Promise<void> {
    if (this.started) await Promise.all(this.syncs);
  }

  start(registry: ApiRegistry, logger: Logger, signal: AbortSignal): void {
    this.started = true;
    (['mutating', 'validating'] as const).forEach((which, i) => {
      const store = registry.lookup(GROUP, 'v1', `${which}webhookconfigurations`);
      if (!store) throw new Error(`${which}webhookconfigurations are not served`);
      const objects = this.objects[which];
      const rebuild = () => this.rebuild(which);
      this.running.push(
        runStoreInformer(
          store,
          {
            replace(items) {
              objects.clear();
              for (const o of items) objects.set(o.metadata?.name ?? '', o);
              rebuild();
            },
            upsert(o) {
              objects.set(o.metadata?.name ?? '', o);
              rebuild();
            },
            remove(o) {
              objects.delete(o.metadata?.name ?? '');
              rebuild();
            },
          },
          { logger, signal, onSynced: this.marks[i] },
        ),
      );
    });
  }

  async stopped(): Promise<void> {
    await Promise.all(this.running);
    this.running = [];
  }

  /** Replaces the webhooks directly (unit tests without a server). */
  set(mutating: MutatingWebhookConfiguration[], validating: ValidatingWebhookConfiguration[]): void {
    this.objects.mutating = new Map(mutating.map((c) => [c.metadata?.name ?? '', c as KubeObject]));
    this.objects.validating = new Map(validating.map((c) => [c.metadata?.name ?? '', c as KubeObject]));
    this.rebuild('mutating');
    this.rebuild('validating');
  }

  private rebuild(which: 'mutating' | 'validating'): void {
    const configs = [...this.objects[which].values()].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
    const hooks = configs.flatMap((c) => ((c as { webhooks?: unknown[] }).webhooks ?? []).map((webhook) => ({ configuration: c.metadata?.name ?? '', webhook })));
    if (which === 'mutating') this.mutatingHooks = hooks as ConfiguredWebhook<MutatingWebhook>[];
    else this.validatingHooks = hooks as ConfiguredWebhook<ValidatingWebhook>[];
  }
}
