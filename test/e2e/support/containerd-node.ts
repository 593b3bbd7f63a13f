import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { firstMissing, missingCommand, missingRoot } from '../../../src/testing/requirements.js';
import { removeDir, type ServerProcess } from '../harness.js';

/** Why this machine cannot run a node on containerd (root, containerd, runc, the CNI plugins, busybox for the test images), or undefined. */
export function missingContainerd(): string | undefined {
  return firstMissing(
    missingRoot(),
    missingCommand('containerd', ['--version'], 'apt install containerd'),
    missingCommand('runc', ['--version'], 'apt install runc'),
    existsSync('/usr/lib/cni/bridge') ? undefined : 'CNI plugins are not installed (apt install containernetworking-plugins)',
    missingCommand('busybox', ['true'], 'apt install busybox-static'),
  );
}

/** Stops a server whose kubelet ran containerd pods, removes the pod bridge it made and its data dir. */
export async function stopContainerdServer(server: ServerProcess | undefined): Promise<void> {
  await server?.stop();
  try {
    execFileSync('ip', ['link', 'del', 'skiff0'], { stdio: 'ignore' });
  } catch {
    // no bridge was made
  }
  if (server) await removeDir(server.dataDir);
}
