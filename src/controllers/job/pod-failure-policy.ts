import type { PodFailurePolicy, PodFailurePolicyOnExitCodesRequirement } from 'kubernetes-types/batch/v1.js';
import type { ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';

export type PodFailurePolicyAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

export interface PodFailurePolicyMatch {
  action: PodFailurePolicyAction;
  /** Upstream's message naming the container or condition and the rule index. */
  message: string;
}

function exitCodeMatches(code: number, req: PodFailurePolicyOnExitCodesRequirement): boolean {
  const listed = req.values.includes(code);
  return req.operator === 'In' ? listed : !listed;
}

/** The first terminated container (non-zero exit) the requirement matches; init containers are checked first. */
function matchingContainer(pod: Pod, req: PodFailurePolicyOnExitCodesRequirement): ContainerStatus | undefined {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return statuses.find((s) => {
    const code = s.state?.terminated?.exitCode;
    if (code === undefined || code === 0) return false;
    if (req.containerName && req.containerName !== s.name) return false;
    return exitCodeMatches(code, req);
  });
}

/**
 * Evaluates a failed pod against the Job's podFailurePolicy: the first
 * matching rule wins; undefined means no rule matched (the failure counts).
 */
export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined, pod: Pod): PodFailurePolicyMatch | undefined {
  const podName = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
  for (const [i, rule] of (policy?.rules ?? []).entries()) {
    const action = rule.action as PodFailurePolicyAction;
    if (rule.onExitCodes) {
      const c = matchingContainer(pod, rule.onExitCodes);
      if (c) return { action, message: `Container ${c.name} for pod ${podName} failed with exit code ${c.state?.terminated?.exitCode} matching ${action} rule at index ${i}` };
    }
    for (const pattern of rule.onPodConditions ?? []) {
      const want = pattern.status || 'True';
      if ((pod.status?.conditions ?? []).some((c) => c.type === pattern.type && c.status === want)) {
        return { action, message: `Pod ${podName} has condition ${pattern.type} matching ${action} rule at index ${i}` };
      }
    }
  }
  return undefined;
}
