import { readFileSync, writeFileSync } from 'node:fs';

/** Upstream's oom_score_adj for the kubelet and kube-proxy (and the container runtime): only pods die first. */
export const NODE_DAEMON_OOM_SCORE_ADJ = -999;

/**
 * Sets the kernel OOM killer's adjustment of a process (upstream's
 * --oom-score-adj). Lowering it needs CAP_SYS_RESOURCE: without it the
 * value stays and the reason is returned instead of thrown.
 */
export function setOomScoreAdj(value: number, pid: number | 'self' = 'self'): { ok: true } | { ok: false; reason: string } {
  if (!Number.isInteger(value) || value < -1000 || value > 1000) return { ok: false, reason: `oom_score_adj ${value} is outside [-1000, 1000]` };
  const path = `/proc/${pid}/oom_score_adj`;
  try {
    writeFileSync(path, String(value));
    return Number(readFileSync(path, 'utf8').trim()) === value ? { ok: true } : { ok: false, reason: `${path} did not take ${value}` };
  } catch (err) {
    return { ok: false, reason: `cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
  }
}
