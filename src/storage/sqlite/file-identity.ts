import { statSync } from 'node:fs';
import { UnavailableError } from '../errors.js';

/**
 * Notices the database file being deleted or replaced under a running
 * server (its inode changes or disappears). Writes after that would go into
 * a file nobody will ever open again, so from then on none is acknowledged.
 */
export class FileIdentity {
  private readonly dev: number;
  private readonly ino: number;
  private lost: string | undefined;

  constructor(private readonly path: string) {
    const st = statSync(path);
    this.dev = st.dev;
    this.ino = st.ino;
  }

  /** Why the file can no longer be trusted, or undefined while it is still the one opened. */
  check(): string | undefined {
    if (this.lost) return this.lost;
    const st = statSync(this.path, { throwIfNoEntry: false });
    if (!st) this.lost = `the database file ${this.path} was deleted while the server was running; writes are refused, restore the file and restart`;
    else if (st.ino !== this.ino || st.dev !== this.dev) this.lost = `the database file ${this.path} was replaced while the server was running; writes are refused, restart to open the new file`;
    return this.lost;
  }

  /** Throws (503) once the file was deleted or replaced. */
  verify(): void {
    const lost = this.check();
    if (lost) throw new UnavailableError(lost);
  }
}
