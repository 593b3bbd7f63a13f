import type { Pod } from 'kubernetes-types/core/v1.js';

export const JOB_COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';

/** A pod's completion index (annotation, else label), or undefined if absent or malformed. */
export function podCompletionIndex(pod: Pod): number | undefined {
  const text = pod.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] ?? pod.metadata?.labels?.[JOB_COMPLETION_INDEX_ANNOTATION];
  if (text === undefined || !/^(0|[1-9][0-9]*)$/.test(text)) return undefined;
  return Number(text);
}

/** Parses `status.completedIndexes` ("1,3-5,7"), ignoring malformed parts and indexes >= completions. */
export function parseIndexes(text: string | undefined, completions: number): Set<number> {
  const out = new Set<number>();
  for (const part of (text ?? '').split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    const from = Number(m[1]);
    const to = Math.min(m[2] === undefined ? from : Number(m[2]), completions - 1);
    for (let i = from; i <= to; i++) out.add(i);
  }
  return out;
}

/** Formats indexes as upstream's compressed intervals: sorted, runs of three or more collapsed to "a-b". */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    // two in a row are listed, longer runs collapse (upstream's orderedIntervals.String)
    parts.push(i === j ? String(sorted[i]) : j === i + 1 ? `${sorted[i]},${sorted[j]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The lowest `count` indexes in [0, completions) that are neither done nor running. */
export function pendingIndexes(completions: number, done: ReadonlySet<number>, running: ReadonlySet<number>, count: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < count; i++) if (!done.has(i) && !running.has(i)) out.push(i);
  return out;
}
