import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import { asKind } from '../../../api/object.js';
import type { Clock } from '../../../base/clock.js';
import type { RegistryStore } from '../../registry/registry-store.js';
import { compilePolicy, type CompiledPolicy } from './compiled-policy.js';

export interface PolicyPair {
  policy: CompiledPolicy;
  binding: ValidatingAdmissionPolicyBinding;
}

export interface PolicySourceOptions {
  policies: () => RegistryStore | undefined;
  bindings: () => RegistryStore | undefined;
  clock: Pick<Clock, 'monotonic'>;
  /** How long a listing serves before the next request lists again. */
  refreshMs?: number;
}

/**
 * The bound policies the admission plugin evaluates: policies and bindings
 * listed from their stores at most once per `refreshMs` (policies take
 * effect shortly after they are written, as with upstream's informers),
 * each policy compiled once per resourceVersion, bindings sorted by name.
 */
export class PolicySource {
  private pairs: PolicyPair[] = [];
  private listedAt = -Infinity;
  private refreshing: Promise<void> | undefined;
  private readonly compiled = new Map<string, { rv: string; policy: CompiledPolicy }>();

  constructor(private readonly opts: PolicySourceOptions) {}

  async current(): Promise<readonly PolicyPair[]> {
    if (this.opts.clock.monotonic() - this.listedAt >= (this.opts.refreshMs ?? 1000)) {
      this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
      await this.refreshing;
    }
    return this.pairs;
  }

  private async refresh(): Promise<void> {
    const policyStore = this.opts.policies();
    const bindingStore = this.opts.bindings();
    if (!policyStore || !bindingStore) return;
    const [policies, bindings] = await Promise.all([policyStore.list('', {}), bindingStore.list('', {})]);
    const byName = new Map<string, CompiledPolicy>();
    for (const item of policies.items) {
      const p = asKind<ValidatingAdmissionPolicy>(item);
      const name = p.metadata?.name ?? '';
      const rv = p.metadata?.resourceVersion ?? '';
      let entry = this.compiled.get(name);
      if (entry?.rv !== rv) {
        entry = { rv, policy: compilePolicy(p) };
        this.compiled.set(name, entry);
      }
      byName.set(name, entry.policy);
    }
    for (const name of this.compiled.keys()) if (!byName.has(name)) this.compiled.delete(name);
    this.pairs = bindings.items
      .map((b) => asKind<ValidatingAdmissionPolicyBinding>(b))
      .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
      .flatMap((binding) => {
        const policy = byName.get(binding.spec?.policyName ?? '');
        return policy ? [{ policy, binding }] : [];
      });
    this.listedAt = this.opts.clock.monotonic();
  }
}
