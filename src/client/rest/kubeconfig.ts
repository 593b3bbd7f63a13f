import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import type { RestConfig } from './rest-config.js';

interface NamedCluster {
  name: string;
  cluster: {
    server: string;
    'certificate-authority'?: string;
    'certificate-authority-data'?: string;
    'insecure-skip-tls-verify'?: boolean;
    'tls-server-name'?: string;
  };
}

interface NamedUser {
  name: string;
  user: {
    'client-certificate'?: string;
    'client-certificate-data'?: string;
    'client-key'?: string;
    'client-key-data'?: string;
    token?: string;
    tokenFile?: string;
    username?: string;
    password?: string;
  };
}

interface NamedContext {
  name: string;
  context: { cluster: string; user?: string; namespace?: string };
}

/** The parts of a `kind: Config` file that skiff understands. */
export interface Kubeconfig {
  'current-context'?: string;
  clusters?: NamedCluster[];
  users?: NamedUser[];
  contexts?: NamedContext[];
}

/** A kubeconfig that cannot be resolved into a RestConfig. */
export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
}

export type KubeconfigSource = { path: string } | { content: string; baseDir?: string };

export interface LoadKubeconfigOptions {
  /** Context to use instead of current-context. */
  context?: string;
}

/**
 * Reads a kubeconfig from a file (`{ path }`) or from text (`{ content }`) and
 * resolves one context into a RestConfig. Relative file references resolve
 * against the kubeconfig's directory, as kubectl does.
 */
export function loadKubeconfig(source: KubeconfigSource | string, options: LoadKubeconfigOptions = {}): RestConfig {
  const src: KubeconfigSource = typeof source === 'string' ? { path: source } : source;
  const content = 'path' in src ? readFileSync(src.path, 'utf8') : src.content;
  const baseDir = 'path' in src ? dirname(resolve(src.path)) : (src.baseDir ?? process.cwd());
  const doc = parse(content) as Kubeconfig | null;
  if (!doc || typeof doc !== 'object') throw new KubeconfigError('kubeconfig is empty');
  return resolveContext(doc, baseDir, options.context);
}

function resolveContext(doc: Kubeconfig, baseDir: string, contextName?: string): RestConfig {
  const name = contextName ?? doc['current-context'];
  if (!name) throw new KubeconfigError('kubeconfig has no current-context and none was requested');
  const context = doc.contexts?.find((c) => c.name === name)?.context;
  if (!context) throw new KubeconfigError(`context "${name}" not found in kubeconfig`);
  const cluster = doc.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (!cluster?.server) throw new KubeconfigError(`cluster "${context.cluster}" not found or has no server`);
  const user = context.user ? (doc.users?.find((u) => u.name === context.user)?.user ?? {}) : {};

  const file = (p: string): Buffer => readFileSync(isAbsolute(p) ? p : resolve(baseDir, p));
  const inline = (b64: string): Buffer => Buffer.from(b64, 'base64');
  const pick = (data?: string, path?: string): Buffer | undefined =>
    data ? inline(data) : path ? file(path) : undefined;

  const config: RestConfig = { server: cluster.server.replace(/\/+$/, '') };
  const ca = pick(cluster['certificate-authority-data'], cluster['certificate-authority']);
  if (ca) config.ca = ca;
  if (cluster['insecure-skip-tls-verify']) config.insecureSkipTLSVerify = true;
  if (cluster['tls-server-name']) config.tlsServerName = cluster['tls-server-name'];
  const cert = pick(user['client-certificate-data'], user['client-certificate']);
  const key = pick(user['client-key-data'], user['client-key']);
  if (cert) config.cert = cert;
  if (key) config.key = key;
  if (user.token) config.token = user.token;
  if (user.tokenFile) config.tokenFile = isAbsolute(user.tokenFile) ? user.tokenFile : resolve(baseDir, user.tokenFile);
  if (user.username !== undefined) config.username = user.username;
  if (user.password !== undefined) config.password = user.password;
  if (context.namespace) config.namespace = context.namespace;
  return config;
}
