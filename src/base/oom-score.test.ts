import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { missingRoot, skipUnless } from '../testing/requirements.js';
import { NODE_DAEMON_OOM_SCORE_ADJ, setOomScoreAdj } from './oom-score.js';

/** Lowering oom_score_adj needs CAP_SYS_RESOURCE (bit 24), which root in an unprivileged container lacks. */
function hasSysResource(): boolean {
  const eff = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '0';
  return (BigInt(`0x${eff}`) & (1n << 24n)) !== 0n;
}

test('sets a process oom_score_adj to upstream -999 as root (or says why the kernel refused)', skipUnless(missingRoot()), () => {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    const before = readFileSync(`/proc/${child.pid}/oom_score_adj`, 'utf8').trim();
    const result = setOomScoreAdj(NODE_DAEMON_OOM_SCORE_ADJ, child.pid!);
    const after = readFileSync(`/proc/${child.pid}/oom_score_adj`, 'utf8').trim();
    if (hasSysResource()) {
      assert.deepEqual(result, { ok: true });
      assert.equal(after, '-999');
    } else {
      assert.deepEqual(result, { ok: false, reason: `cannot write /proc/${child.pid}/oom_score_adj: EACCES` });
      assert.equal(after, before);
    }
  } finally {
    child.kill('SIGKILL');
  }
});

test('refuses values the kernel would not take, and reports instead of throwing', () => {
  assert.equal(setOomScoreAdj(-1001).ok, false);
  const gone = setOomScoreAdj(0, 2 ** 22 + 12345);
  assert.equal(gone.ok, false);
});
