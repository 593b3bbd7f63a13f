import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { firstMissing, missingCommand, skipUnless } from '../../../testing/requirements.js';
import type { LogStream } from './cri-log-writer.js';
import { OutputPump, type OutputLog } from './output-pump.js';

/** A container printing `y` lines as fast as it can (`yes`) into its stdout FIFO, as the shim sets it up. */
function yesContainer() {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-pump-'));
  const files = { stdout: join(dir, 'stdout'), stderr: join(dir, 'stderr'), exit: join(dir, 'exit') };
  for (const f of [files.stdout, files.stderr]) assert.equal(spawnSync('mkfifo', [f]).status, 0);
  // read-write opens, as the shim's, so neither side waits for the other
  const proc = spawn('sh', ['-c', 'exec yes 1<>"$1" 2<>"$2"', 'sh', files.stdout, files.stderr], { stdio: 'ignore' });
  return {
    files,
    stop() {
      proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

class FakeLog implements OutputLog {
  bytes = 0;
  chunks: { stream: LogStream; turn: number }[] = [];
  drained: (() => void)[] = [];
  constructor(
    private readonly keepUp: boolean,
    private readonly turn: () => number,
  ) {}
  write(stream: LogStream, chunk: Buffer): boolean {
    this.bytes += chunk.length;
    this.chunks.push({ stream, turn: this.turn() });
    return this.keepUp;
  }
  onceDrained(fn: () => void): void {
    this.drained.push(fn);
  }
  reopen(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('container output pump', skipUnless(firstMissing(missingCommand('yes'), missingCommand('mkfifo'))), () => {
  it('reads one chunk per container per event-loop turn from a container writing as fast as it can', async () => {
    let turn = 0;
    let turning = true;
    const spin = () => {
      turn++;
      if (turning) setImmediate(spin);
    };
    spin();
    const c = yesContainer();
    const log = new FakeLog(true, () => turn);
    const pump = new OutputPump(c.files, log, () => {});
    try {
      await until('200 chunks', () => log.chunks.length >= 200);
      const perTurn = new Map<number, number>();
      for (const { turn: t } of log.chunks) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
      assert.equal(Math.max(...perTurn.values()), 1, 'never two chunks of one container in one turn');
    } finally {
      turning = false;
      await pump.detach();
      c.stop();
    }
  });

  it('stops reading while the log is behind (the container blocks on its full pipe) and goes on once it drains', async () => {
    const c = yesContainer();
    const log = new FakeLog(false, () => 0);
    const pump = new OutputPump(c.files, log, () => {});
    try {
      await until('the first chunk', () => log.bytes > 0);
      const first = log.bytes;
      // however fast the container writes, nothing more is read (or buffered in memory) until the log drains
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(log.bytes, first);
      assert.equal(log.drained.length, 1);
      log.drained.shift()!();
      await until('reading again', () => log.bytes > first);
    } finally {
      await pump.detach();
      c.stop();
    }
  });
});
