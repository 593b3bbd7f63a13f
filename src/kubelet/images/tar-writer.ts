/** One entry of a ustar archive: a regular file, a directory or a symbolic link. */
export type TarEntry =
  | { type: 'file'; path: string; data: Buffer; mode?: number }
  | { type: 'dir'; path: string; mode?: number }
  | { type: 'symlink'; path: string; target: string };

const BLOCK = 512;

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function header(e: TarEntry, size: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  let name = e.type === 'dir' && !e.path.endsWith('/') ? `${e.path}/` : e.path;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    // ustar splits long names at a slash into prefix (155) and name (100)
    const cut = name.lastIndexOf('/', name.length - 2);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
    if (Buffer.byteLength(name) > 100 || Buffer.byteLength(prefix) > 155) throw new Error(`tar: path too long: ${e.path}`);
  }
  h.write(name, 0, 100);
  const mode = e.type === 'symlink' ? 0o777 : (e.mode ?? (e.type === 'dir' ? 0o755 : 0o644));
  h.write(octal(mode, 8), 100);
  h.write(octal(0, 8), 108); // uid
  h.write(octal(0, 8), 116); // gid
  h.write(octal(size, 12), 124);
  h.write(octal(0, 12), 136); // mtime: fixed, so the same content gives the same digest
  h.write('        ', 148); // checksum placeholder
  h.write(e.type === 'file' ? '0' : e.type === 'dir' ? '5' : '2', 156);
  if (e.type === 'symlink') h.write(e.target, 157, 100);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.write(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + ' ', 148);
  return h;
}

/** Writes a deterministic ustar archive (root-owned, mtime 0) in memory. */
export function writeTar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.type === 'file' ? e.data : Buffer.alloc(0);
    parts.push(header(e, data.length));
    if (data.length) {
      parts.push(data);
      const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
      if (pad) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}
