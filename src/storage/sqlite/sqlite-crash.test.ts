import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { SqliteStorage } from './sqlite-storage.js';
import { TempDbs } from './testing/temp-db.js';

const temp = new TempDbs();
after(() => temp.cleanup());

const writer = fileURLToPath(new URL('./testing/ack-writer.ts', import.meta.url));

describe('SqliteStorage crash durability', () => {
  it('keeps every acknowledged write of a SIGKILLed process', async () => {
    const path = temp.path();
    const child = spawn(process.execPath, ['--import', 'tsx', writer, path], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked = new Map<string, number>();
    let buffered = '';
    const enough = new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`only ${acked.size} writes acknowledged in time`)), 20_000);
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [key, revision] = line.split(' ');
          acked.set(key!, Number(revision));
        }
        if (acked.size >= 2000) {
          clearTimeout(deadline);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
    });
    const exited = once(child, 'exit');
    try {
      await enough;
    } finally {
      child.kill('SIGKILL');
      await exited;
    }

    const storage = SqliteStorage.open({ path });
    try {
      const listed = await storage.list('/crash/');
      const stored = new Map(listed.kvs.map((kv) => [kv.key, kv.modRevision]));
      for (const [key, revision] of acked) assert.equal(stored.get(key), revision, `acknowledged ${key}@${revision}`);
      const current = await storage.currentRevision();
      assert.ok(current >= Math.max(...acked.values()));
      const next = await storage.create('/crash/after', new Uint8Array(0));
      assert.equal(next.revision, current + 1);
    } finally {
      await storage.close();
    }
  });
});
