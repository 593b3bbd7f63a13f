import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../../machinery/logger.js';
import { firstMissing, missingCommand, missingRoot, skipUnless } from '../../../testing/requirements.js';
import { writePodNetworkConfig } from '../../cni/cni-config.js';
import { ContainerdSupervisor } from '../../containerd/containerd-supervisor.js';
import { busyboxLayer, dockerArchive } from '../../images/busybox-image.js';
import { importImages } from '../../images/ctr-images.js';
import { runtimeConformance } from '../conformance.js';
import type { Runtime } from '../runtime.js';
import { CriRuntime } from './cri-runtime.js';

const CNI_BIN = '/usr/lib/cni';
const BRIDGE = 'skiff-crit0';

const missing = firstMissing(
  missingRoot(),
  missingCommand('containerd', ['--version'], 'apt install containerd'),
  missingCommand('runc', ['--version'], 'apt install runc'),
  existsSync(join(CNI_BIN, 'bridge')) ? undefined : 'CNI plugins are not installed (apt install containernetworking-plugins)',
  missingCommand('busybox', ['true'], 'apt install busybox-static'),
);

const { skip } = skipUnless(missing);

if (skip) {
  runtimeConformance('cri (containerd)', () => {
    throw new Error(skip);
  });
} else {
  let dir = '';
  let supervisor: ContainerdSupervisor | undefined;
  runtimeConformance('cri (containerd)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-cri-'));
    const cniConfDir = join(dir, 'net.d');
    // a bridge of the test's own on a range no node uses; no masquerade, so the host's NAT table is left alone
    writePodNetworkConfig(cniConfDir, { podCIDR: '10.250.251.0/24', bridge: BRIDGE, ipamDataDir: join(dir, 'ipam') });
    supervisor = new ContainerdSupervisor({ dir: join(dir, 'containerd'), cniBinDir: CNI_BIN, cniConfDir, logger: createLogger('containerd', {}, () => undefined) });
    const endpoint = await supervisor.start();
    const archive = join(dir, 'busybox.tar');
    writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: ['docker.io/library/busybox:latest'] }));
    await importImages(supervisor.paths.socket, [archive]);
    return CriRuntime.connect(endpoint, { pollIntervalMs: 100 });
  }, async (rt: Runtime) => {
    const cri = rt as CriRuntime;
    for (const s of await cri.listPodSandboxes()) await cri.removePodSandbox(s.id);
    await cri.close();
    await supervisor?.stop();
    try {
      execFileSync('ip', ['link', 'del', BRIDGE], { stdio: 'ignore' });
    } catch {
      // the bridge was never created
    }
    rmSync(dir, { recursive: true, force: true });
  });
}
