import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
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

/**
 * A standard kubeconfig with embedded credentials and current-context set.
 * Its shape is fixed, so it is written as text with every value a JSON
 * (= YAML double-quoted) string: the YAML library's first stringify cost a
 * cold `startTestApiServer()` ~30 ms.
 */
export function renderKubeconfig(opts: KubeconfigOptions): string {
  const q = (v: string) => JSON.stringify(v);
  const cluster = q(opts.cluster ?? 'skiff');
  const context = q(opts.context ?? 'skiff');
  const user = q(opts.user);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `  - name: ${cluster}`,
    '    cluster:',
    `      server: ${q(opts.server)}`,
    `      certificate-authority-data: ${q(base64(opts.caPem))}`,
    'users:',
    `  - name: ${user}`,
    '    user:',
    `      client-certificate-data: ${q(base64(opts.certPem))}`,
    `      client-key-data: ${q(base64(opts.keyPem))}`,
    'contexts:',
    `  - name: ${context}`,
    '    context:',
    `      cluster: ${cluster}`,
    `      user: ${user}`,
    `current-context: ${context}`,
    'preferences: {}',
    '',
  ].join('\n');
}

/** Writes the kubeconfig with mode 0600, since it holds a private key. */
export async function writeKubeconfig(path: string, opts: KubeconfigOptions): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, renderKubeconfig(opts), 0o600);
}
