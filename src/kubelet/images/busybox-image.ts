import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeTar, type TarEntry } from './tar-writer.js';

/** What goes into an image config beside the root filesystem. */
export interface ImageOptions {
  /** Repository tags, e.g. `skiff.local/pause:1`. */
  tags: string[];
  entrypoint?: string[];
  cmd?: string[];
  /** The image's user, e.g. `1000` or `1000:1000`. */
  user?: string;
  env?: string[];
  workingDir?: string;
}

/** Where Debian's busybox-static keeps its binary. */
export const BUSYBOX_PATHS = ['/bin/busybox', '/usr/bin/busybox'];

function findBusybox(): string {
  for (const p of BUSYBOX_PATHS) {
    try {
      if (execFileSync(p, ['--list'], { stdio: ['ignore', 'pipe', 'ignore'] }).length > 0) return p;
    } catch {
      // try the next one
    }
  }
  throw new Error('busybox not found (install busybox-static)');
}

/**
 * A root filesystem made from the host's static busybox: /bin/busybox with
 * one symlink per applet, plus the few files programs expect (/etc/passwd,
 * /etc/group, /tmp).
 */
export function busyboxLayer(busybox = findBusybox()): Buffer {
  const applets = execFileSync(busybox, ['--list'], { encoding: 'utf8' }).split('\n').filter((a) => a && a !== 'busybox');
  const entries: TarEntry[] = [
    { type: 'dir', path: 'bin' },
    { type: 'file', path: 'bin/busybox', data: readFileSync(busybox), mode: 0o755 },
    ...applets.map((a): TarEntry => ({ type: 'symlink', path: `bin/${a}`, target: 'busybox' })),
    { type: 'dir', path: 'etc' },
    { type: 'file', path: 'etc/passwd', data: Buffer.from('root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n') },
    { type: 'file', path: 'etc/group', data: Buffer.from('root:x:0:\nnogroup:x:65534:\n') },
    { type: 'dir', path: 'root', mode: 0o700 },
    { type: 'dir', path: 'tmp', mode: 0o1777 },
    { type: 'dir', path: 'proc' },
    { type: 'dir', path: 'sys' },
    { type: 'dir', path: 'dev' },
  ];
  return writeTar(entries);
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/**
 * A docker-archive tarball (what `docker save` writes and `ctr images
 * import` reads) of one uncompressed layer and an image config, built in
 * memory without any registry.
 */
export function dockerArchive(layer: Buffer, opts: ImageOptions): Buffer {
  const diffId = `sha256:${sha256(layer)}`;
  const config = JSON.stringify({
    architecture: process.arch === 'x64' ? 'amd64' : process.arch,
    os: 'linux',
    config: {
      Env: opts.env ?? ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
      ...(opts.entrypoint ? { Entrypoint: opts.entrypoint } : {}),
      ...(opts.cmd ? { Cmd: opts.cmd } : {}),
      ...(opts.user ? { User: opts.user } : {}),
      ...(opts.workingDir ? { WorkingDir: opts.workingDir } : {}),
    },
    rootfs: { type: 'layers', diff_ids: [diffId] },
    history: [{ created_by: 'skiff busybox image' }],
  });
  const configName = `${sha256(config)}.json`;
  const layerName = `${sha256(layer)}/layer.tar`;
  const manifest = JSON.stringify([{ Config: configName, RepoTags: opts.tags, Layers: [layerName] }]);
  return writeTar([
    { type: 'file', path: configName, data: Buffer.from(config) },
    { type: 'dir', path: sha256(layer) },
    { type: 'file', path: layerName, data: layer },
    { type: 'file', path: 'manifest.json', data: Buffer.from(manifest) },
  ]);
}

/** The sandbox ("pause") image skiff imports at start: busybox sleeping forever, no internet needed. */
export const PAUSE_IMAGE = 'skiff.local/pause:1';

export function pauseImageArchive(): Buffer {
  return dockerArchive(busyboxLayer(), { tags: [PAUSE_IMAGE], entrypoint: ['/bin/sleep', '2147483647'] });
}
