import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RestConfig } from './rest-config.js';
import { KubeconfigError } from './kubeconfig.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface InClusterOptions {
  /** For tests: where the token, ca.crt and namespace files live. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The config a pod gets from its service account: the API server from
 * KUBERNETES_SERVICE_HOST/PORT, the mounted token (re-read as it rotates) and
 * the cluster CA.
 */
export function inClusterConfig(options: InClusterOptions = {}): RestConfig {
  const env = options.env ?? process.env;
  const dir = options.dir ?? SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new KubeconfigError('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  }
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) throw new KubeconfigError(`service account token not found at ${tokenFile}`);
  // IPv6 hosts need brackets inside a URL.
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const config: RestConfig = { server: `https://${hostPart}:${port}`, tokenFile };
  const caFile = join(dir, 'ca.crt');
  if (existsSync(caFile)) config.ca = readFileSync(caFile);
  const nsFile = join(dir, 'namespace');
  if (existsSync(nsFile)) config.namespace = readFileSync(nsFile, 'utf8').trim();
  return config;
}
