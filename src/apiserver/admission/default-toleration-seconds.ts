import type { Pod, Toleration } from 'kubernetes-types/core/v1.js';
import { asKind } from '../../api/object.js';
import { toleratesTaint } from '../../machinery/node-selection.js';
import type { AdmissionAttributes, MutatingAdmission, Operation } from './admission.js';

/** Upstream's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
export const DEFAULT_TOLERATION_SECONDS = 300;

const TAINTS = [
  { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
];

/**
 * DefaultTolerationSeconds admission: a new pod that does not already
 * tolerate the not-ready/unreachable NoExecute taints gets tolerations for
 * them with tolerationSeconds 300, so its eviction from a lost node waits
 * five minutes.
 */
export class DefaultTolerationSeconds implements MutatingAdmission {
  readonly name = 'DefaultTolerationSeconds';

  constructor(private readonly seconds = DEFAULT_TOLERATION_SECONDS) {}

  handles(operation: Operation): boolean {
    return operation === 'CREATE';
  }

  admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.resource !== 'pods' || attrs.subresource || !attrs.object) return Promise.resolve();
    const spec = asKind<Pod>(attrs.object).spec;
    if (!spec) return Promise.resolve();
    const tolerations: Toleration[] = [...(spec.tolerations ?? [])];
    for (const taint of TAINTS) {
      if (tolerations.some((t) => toleratesTaint(t, taint))) continue;
      tolerations.push({ key: taint.key, operator: 'Exists', effect: taint.effect, tolerationSeconds: this.seconds });
    }
    if (tolerations.length !== (spec.tolerations?.length ?? 0)) spec.tolerations = tolerations;
    return Promise.resolve();
  }
}
