import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { RestConfig } from './rest-config.js';
import { KubeconfigError, loadKubeconfig } from './kubeconfig.js';
import { inClusterConfig, type InClusterOptions } from './in-cluster-config.js';

export interface DefaultConfigOptions extends InClusterOptions {
  /** An explicit kubeconfig path (a `--kubeconfig` flag); wins over everything else. */
  kubeconfig?: string;
  context?: string;
  home?: string;
}

/**
 * Finds a config the way controller-runtime's GetConfig does: an explicit
 * kubeconfig, else the first existing file in $KUBECONFIG, else the pod's
 * service account when running in a cluster, else ~/.kube/config.
 */
export function defaultRestConfig(options: DefaultConfigOptions = {}): RestConfig {
  const env = options.env ?? process.env;
  const load = (path: string): RestConfig => loadKubeconfig(path, { context: options.context });
  if (options.kubeconfig) return load(options.kubeconfig);
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).find((p) => p && existsSync(p));
  if (fromEnv) return load(fromEnv);
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) return inClusterConfig(options);
  const home = join(options.home ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return load(home);
  throw new KubeconfigError('no configuration: pass a kubeconfig, set KUBECONFIG, run in a cluster, or create ~/.kube/config');
}
