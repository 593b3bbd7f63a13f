/** The Kubernetes version skiff's API is compatible with (kubectl's dispatcher keys on the minor). */
export const KUBERNETES_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0-skiff' };

export function versionInfo() {
  return {
    major: KUBERNETES_VERSION.major,
    minor: KUBERNETES_VERSION.minor,
    gitVersion: KUBERNETES_VERSION.gitVersion,
    gitCommit: 'skiff',
    gitTreeState: 'clean',
    buildDate: '2026-11-21T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsx',
    platform: `${process.platform === 'win32' ? 'windows' : process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
