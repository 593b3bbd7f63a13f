import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temporary database files for tests; `cleanup` removes every directory handed out. */
export class TempDbs {
  private readonly dirs: string[] = [];

  path(): string {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-sqlite-'));
    this.dirs.push(dir);
    return join(dir, 'state.db');
  }

  cleanup(): void {
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}
