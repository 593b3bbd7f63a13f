import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { importImages } from '../../kubelet/images/ctr-images.js';
import { CriClient } from '../../kubelet/runtime/cri/cri-client.js';
import type { ComponentCommand } from '../command.js';
import { UsageError } from '../flags.js';

/** The socket of the containerd a kubelet supervises under `rootDir`. */
function socketOf(flags: Record<string, unknown>): string {
  const endpoint = String(flags['container-runtime-endpoint'] ?? '');
  if (endpoint) return endpoint.replace(/^unix:\/\//, '');
  const rootDir = String(flags['root-dir'] ?? '') || (flags['data-dir'] ? join(resolve(String(flags['data-dir'])), 'kubelet') : '');
  const candidates = rootDir ? [rootDir] : [resolve('.skiff/kubelet'), '/var/lib/skiff-kubelet'];
  for (const dir of candidates) {
    const sock = join(dir, 'containerd', 'containerd.sock');
    if (existsSync(sock)) return sock;
  }
  throw new UsageError(`no kubelet containerd socket under ${candidates.join(' or ')}; is the kubelet running with containerd? (--root-dir, --data-dir or --container-runtime-endpoint)`);
}

function human(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let i = 0;
  let n = bytes;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return `${n.toFixed(i === 0 ? 0 : 1)}${units[i]}`;
}

export const command: ComponentCommand = {
  name: 'images',
  summary: 'Manage the node\'s images: `images import FILE…` (docker-archive or OCI tarballs, for air-gapped nodes), `images ls`.',
  positionals: true,
  flags: {
    'data-dir': { type: 'string', default: '', description: 'the data dir of the skiff server whose kubelet runs containerd (default ./.skiff)' },
    'root-dir': { type: 'string', default: '', description: 'the root dir of a standalone kubelet (default /var/lib/skiff-kubelet)' },
    'container-runtime-endpoint': { type: 'string', default: '', description: 'a CRI runtime socket to use instead, e.g. unix:///run/containerd/containerd.sock' },
  },
  async run(flags) {
    const [verb, ...files] = (flags._ as string[] | undefined) ?? [];
    const socket = socketOf(flags);
    if (verb === 'import') {
      if (files.length === 0) throw new UsageError('images import needs at least one tarball');
      for (const name of await importImages(socket, files.map((f) => resolve(f)))) process.stdout.write(`imported ${name}\n`);
      return;
    }
    if (verb === 'ls' || verb === 'list') {
      const client = new CriClient(`unix://${socket}`);
      try {
        const res = await client.image('ListImages', {}, 30_000);
        const rows = (res.images as { id: string; repoTags: string[]; size: number }[]).flatMap((i) =>
          (i.repoTags.length ? i.repoTags : ['<none>']).map((tag) => [tag, i.id.replace(/^sha256:/, '').slice(0, 13), human(Number(i.size))]));
        const widths = [0, 1].map((c) => Math.max(c === 0 ? 5 : 8, ...rows.map((r) => r[c]!.length)));
        process.stdout.write(`${'IMAGE'.padEnd(widths[0]! + 3)}${'IMAGE ID'.padEnd(widths[1]! + 3)}SIZE\n`);
        for (const r of rows.sort((a, b) => a[0]!.localeCompare(b[0]!))) process.stdout.write(`${r[0]!.padEnd(widths[0]! + 3)}${r[1]!.padEnd(widths[1]! + 3)}${r[2]}\n`);
      } finally {
        client.close();
      }
      return;
    }
    throw new UsageError(`unknown images command ${JSON.stringify(verb ?? '')}, want import FILE… or ls`);
  },
};
