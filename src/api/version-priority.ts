const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Upstream's CompareKubeAwareVersionStrings as a sort comparator (higher
 * priority first): GA before beta before alpha, higher numbers first, then
 * anything not shaped like a Kubernetes version, alphabetically.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma || !mb) return ma ? -1 : mb ? 1 : a.localeCompare(b);
  const stage = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  return stage(mb) - stage(ma) || Number(mb[1]) - Number(ma[1]) || Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
