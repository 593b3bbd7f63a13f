/**
 * Test helper process: writes to the storage at argv[2] as fast as it can and
 * prints one line per acknowledged write ("<key> <revision>"), so a test can
 * SIGKILL it mid-stream and check that every acknowledged write survived.
 */
import { SqliteStorage } from '../sqlite-storage.js';

const path = process.argv[2];
if (!path) throw new TypeError('usage: ack-writer <db path>');
const storage = SqliteStorage.open({ path });
const encoder = new TextEncoder();

async function writeForever(): Promise<never> {
  for (let round = 0; ; round++) {
    // Several writes per turn, so acknowledgements also cover group-committed batches.
    const keys = Array.from({ length: 8 }, (_, i) => `/crash/r${round}-${i}`);
    const results = await Promise.all(keys.map((key) => storage.create(key, encoder.encode(key))));
    const lines = results.map((r, i) => (r.succeeded ? `${keys[i]} ${r.revision}\n` : ''));
    // Synchronous stdout write: the line leaves this process only after the commit.
    process.stdout.write(lines.join(''));
  }
}

await writeForever();
