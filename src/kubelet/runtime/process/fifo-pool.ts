import { execFile } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Ready-made FIFOs, handed out by rename. Node cannot mkfifo(3) itself, and
 * a process spawn per container start (from a large parent, on a loaded node)
 * costs more than everything else the kubelet does for it, so FIFOs are made
 * in batches, off the critical path, by one `mkfifo` call.
 */
export class FifoPool {
  private readonly spare: string[] = [];
  private refilling?: Promise<void>;
  private made = 0;

  constructor(
    private readonly dir: string,
    private readonly batch = 32,
  ) {
    // leftovers of an earlier kubelet are unused by definition
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** Moves a fresh FIFO to each of `paths`. */
  async take(paths: string[]): Promise<void> {
    for (const path of paths) {
      while (this.spare.length === 0) await this.refill();
      renameSync(this.spare.pop()!, path);
    }
    if (this.spare.length < this.batch / 2) void this.refill().catch(() => undefined);
  }

  private refill(): Promise<void> {
    this.refilling ??= (async () => {
      const names = Array.from({ length: this.batch }, () => join(this.dir, `fifo-${this.made++}`));
      await run('mkfifo', ['-m', '600', ...names]);
      this.spare.push(...names);
    })().finally(() => (this.refilling = undefined));
    return this.refilling;
  }
}
