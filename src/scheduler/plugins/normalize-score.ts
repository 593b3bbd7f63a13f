import { MAX_NODE_SCORE, type NodeScore } from '../framework/interface.js';

/**
 * Scales scores so the highest becomes MAX_NODE_SCORE; with `reverse`, the
 * lowest raw score ends highest (upstream's DefaultNormalizeScore).
 */
export function defaultNormalizeScore(scores: NodeScore[], reverse: boolean): void {
  let max = 0;
  for (const s of scores) if (s.score > max) max = s.score;
  if (max === 0) {
    if (reverse) for (const s of scores) s.score = MAX_NODE_SCORE;
    return;
  }
  for (const s of scores) {
    let v = Math.floor((MAX_NODE_SCORE * s.score) / max);
    if (reverse) v = MAX_NODE_SCORE - v;
    s.score = v;
  }
}
