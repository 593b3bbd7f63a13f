import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { FakeClock } from '../../base/fake-clock.js';
import { createLogger } from '../../machinery/logger.js';
import type { ContainerStatus } from '../runtime/runtime.js';
import { ContainerLogRotator, isRotatedLogOf, rotationSuffix, type LogReopeningRuntime } from './container-log-rotator.js';

const dir = mkdtempSync(join(tmpdir(), 'skiff-rotate-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const logger = createLogger('test', {}, () => undefined);

/** Containers whose "runtime" reopens by starting an empty file at the path, unless told to refuse. */
class FakeLogRuntime implements LogReopeningRuntime {
  reopened: string[] = [];
  refuse = false;
  constructor(readonly containers: Partial<ContainerStatus>[]) {}
  async listContainers(): Promise<ContainerStatus[]> {
    return this.containers as ContainerStatus[];
  }
  async reopenContainerLog(id: string): Promise<void> {
    if (this.refuse) throw new Error('container is not running');
    this.reopened.push(id);
    writeFileSync(this.containers.find((c) => c.id === id)!.logPath!, '');
  }
}

test('the rotation suffix is upstream\'s YYYYMMDD-HHMMSS, and only such names count as rotated files', () => {
  assert.equal(rotationSuffix(Date.parse('2024-03-04T05:06:07.890Z')), '20240304-050607');
  assert.ok(isRotatedLogOf('0.log', '0.log.20240304-050607'));
  assert.ok(!isRotatedLogOf('0.log', '0.log'));
  assert.ok(!isRotatedLogOf('0.log', '10.log.20240304-050607'));
  assert.ok(!isRotatedLogOf('0.log', '0.log.20240304-050607.gz'));
  assert.ok(!isRotatedLogOf('0.log', '0.log.tmp'));
});

test('a log over the max size is renamed and reopened; at most maxFiles stay; small and exited ones are left alone', async () => {
  const path = join(dir, 'big.log');
  const small = join(dir, 'small.log');
  const exited = join(dir, 'exited.log');
  writeFileSync(small, 'x'.repeat(10));
  writeFileSync(exited, 'x'.repeat(500));
  const runtime = new FakeLogRuntime([
    { id: 'big', state: 'Running', logPath: path },
    { id: 'small', state: 'Running', logPath: small },
    { id: 'gone', state: 'Exited', logPath: exited },
    { id: 'new', state: 'Running', logPath: join(dir, 'not-yet.log') },
  ]);
  const clock = new FakeClock('2024-01-02T03:04:00Z');
  const rotator = new ContainerLogRotator({ runtime, maxSize: 100, maxFiles: 3, logger, clock });
  const stop = new AbortController();
  const running = rotator.run(stop.signal);
  const rotated = () => readdirSync(dir).filter((n) => isRotatedLogOf('big.log', n)).sort();
  for (let round = 1; round <= 4; round++) {
    writeFileSync(path, `round ${round} `.padEnd(150, '.'));
    // the monitor looks every 10 s
    await clock.advance(10_000);
    assert.deepEqual(runtime.reopened.length, round);
  }
  stop.abort();
  await running;
  // maxFiles 3: two rotated files plus the live one, the newest kept
  assert.deepEqual(rotated(), ['big.log.20240102-030430', 'big.log.20240102-030440']);
  assert.match(readFileSync(join(dir, 'big.log.20240102-030440'), 'utf8'), /^round 4 /);
  assert.equal(readFileSync(path, 'utf8'), '');
  assert.ok(existsSync(small) && existsSync(exited));
  assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('small.log.') || n.startsWith('exited.log.')), []);
});

test('when the runtime cannot reopen the log, the rename is undone', async () => {
  const path = join(dir, 'stuck.log');
  writeFileSync(path, 'y'.repeat(200));
  const runtime = new FakeLogRuntime([{ id: 'stuck', state: 'Running', logPath: path }]);
  runtime.refuse = true;
  await new ContainerLogRotator({ runtime, maxSize: 100, logger, clock: new FakeClock() }).rotateLogs();
  assert.equal(readFileSync(path, 'utf8'), 'y'.repeat(200));
  assert.deepEqual(readdirSync(dir).filter((n) => isRotatedLogOf('stuck.log', n)), []);
});
