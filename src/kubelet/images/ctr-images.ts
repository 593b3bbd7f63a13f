import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The containerd namespace the CRI plugin keeps Kubernetes' images and containers in. */
export const CRI_NAMESPACE = 'k8s.io';

/** Thrown when `ctr` fails; carries its stderr. */
export class ImageImportError extends Error {
  override readonly name = 'ImageImportError';
}

/**
 * Loads docker-archive or OCI-layout tarballs into containerd's CRI
 * namespace with containerd's own `ctr`, as `k3s ctr images import` does.
 * Returns the image names imported.
 */
export async function importImages(socket: string, files: string[]): Promise<string[]> {
  const names: string[] = [];
  for (const file of files) {
    try {
      const { stdout } = await run('ctr', ['--address', socket, '--namespace', CRI_NAMESPACE, 'images', 'import', file], { maxBuffer: 4 * 1024 * 1024 });
      for (const m of stdout.matchAll(/unpacking (\S+) \(/g)) names.push(m[1]!);
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new ImageImportError(`importing ${file}: ${(e.stderr || e.message).trim()}`);
    }
  }
  return names;
}
