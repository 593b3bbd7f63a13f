import { chmod, rename, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';

/**
 * Writes through a temporary file and a rename, so a crash never leaves a
 * half-written key, and sets the mode even when the file already existed.
 */
export async function writeFileAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, data, { mode });
  await chmod(tmp, mode);
  await rename(tmp, path);
}
