import { createHash } from 'node:crypto';

const recentHashes = new Map<string, number>();
const RECENT_HASHES = 4096;

/**
 * A flow's 48-bit hash (of its FlowSchema and distinguisher), the seed of its
 * hand of queues; remembered for the flows seen recently, so a flooding flow
 * is hashed once, not per request.
 */
export function flowHash(flowSchema: string, distinguisher: string): number {
  const key = `${flowSchema}\0${distinguisher}`;
  let hash = recentHashes.get(key);
  if (hash === undefined) {
    hash = createHash('sha256').update(key).digest().readUIntBE(0, 6);
    if (recentHashes.size >= RECENT_HASHES) recentHashes.clear();
    recentHashes.set(key, hash);
  }
  return hash;
}

/**
 * Shuffle sharding: deals `handSize` distinct queue indices out of `deckSize`
 * from a hash, so that two flows rarely get the same hand and a heavy flow
 * can fill only its own queues. The hash is read as a mixed-radix number, one
 * digit per card; each digit picks among the cards not yet dealt.
 */
export function dealHand(hash: number, deckSize: number, handSize: number): number[] {
  const n = Math.min(handSize, deckSize);
  const hand: number[] = [];
  let remainder = hash;
  for (let i = 0; i < n; i++) {
    const left = deckSize - i;
    let card = remainder % left;
    remainder = Math.floor(remainder / left);
    // the card-th index not yet in the hand
    for (const taken of [...hand].sort((a, b) => a - b)) if (taken <= card) card++;
    hand.push(card);
  }
  return hand;
}
