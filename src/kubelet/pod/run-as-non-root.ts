import type { Container, Pod } from 'kubernetes-types/core/v1.js';

/** The user an image runs as (CRI Image `uid`/`username`); neither set means root, as upstream assumes. */
export interface ImageUser {
  uid?: number;
  username?: string;
}

/** Upstream's format.Pod: `name_namespace(uid)`. */
export function formatPod(pod: Pod): string {
  return `${pod.metadata?.name}_${pod.metadata?.namespace}(${pod.metadata?.uid})`;
}

/**
 * Upstream's verifyRunAsNonRoot: with `runAsNonRoot` (container over pod),
 * an explicit `runAsUser` must not be 0, else the image's user must be a
 * numeric non-zero uid (checked only with a runtime that knows images).
 * Returns the error message, or undefined when the container may run. The
 * image is looked up only when it matters.
 */
export async function verifyRunAsNonRoot(pod: Pod, container: Container, imageUser?: () => Promise<ImageUser>): Promise<string | undefined> {
  const sc = container.securityContext;
  const psc = pod.spec?.securityContext;
  const nonRoot = sc?.runAsNonRoot ?? psc?.runAsNonRoot;
  if (!nonRoot) return undefined;
  const runAsUser = sc?.runAsUser ?? psc?.runAsUser;
  const where = `(pod: "${formatPod(pod)}", container: ${container.name})`;
  if (runAsUser !== undefined && runAsUser !== null) return runAsUser === 0 ? `container's runAsUser breaks non-root policy ${where}` : undefined;
  if (!imageUser) return undefined;
  const user = await imageUser();
  if (user.uid === undefined && user.username) return `container has runAsNonRoot and image has non-numeric user (${user.username}), cannot verify user is non-root ${where}`;
  if ((user.uid ?? 0) === 0) return `container has runAsNonRoot and image will run as root ${where}`;
  return undefined;
}
