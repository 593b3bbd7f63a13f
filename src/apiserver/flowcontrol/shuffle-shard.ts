import { createHash } from 'node:crypto';

/** A flow's 48-bit hash (of its FlowSchema and distinguisher), the seed of its hand of queues. */
export function flowHash(flowSchema: string, distinguisher: string): number {
  return createHash('sha256').update(flowSchema).update('\0').update(distinguisher).digest().readUIntBE(0, 6);
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
