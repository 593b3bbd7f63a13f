import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import { writeFileAtomic } from './write-file-atomic.js';

export interface KubeconfigOptions {
  server: string;
  caPem: string;
  certPem: string;
  keyPem: string;
  user: string;
  cluster?: string;
  context?: string;
}

function base64(pem: string): string {
  return Buffer.from(pem, 'utf8').toString('base64');
}

/** A standard kubeconfig with embedded credentials and current-context set. */
export function renderKubeconfig(opts: KubeconfigOptions): string {
  const cluster = opts.cluster ?? 'skiff';
  const context = opts.context ?? 'skiff';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: { server: opts.server, 'certificate-authority-data': base64(opts.caPem) } }],
    users: [{ name: opts.user, user: { 'client-certificate-data': base64(opts.certPem), 'client-key-data': base64(opts.keyPem) } }],
    contexts: [{ name: context, context: { cluster, user: opts.user } }],
    'current-context': context,
    preferences: {},
  });
}

/** Writes the kubeconfig with mode 0600, since it holds a private key. */
export async function writeKubeconfig(path: string, opts: KubeconfigOptions): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, renderKubeconfig(opts), 0o600);
}
