/**
 * How far ahead the swarm is: every connected peer asked for its head (/checksum), the claims
 * capped so that one peer's word moves nothing (plausibleHead).
 */
import type { PeerId } from "@libp2p/interface";
import type { SwarmNode } from "../network/libp2p.js";
import { defaultSyncOptions, fetchChecksum } from "./protocols.js";

/**
 * A joiner hears every connected peer's head, but once one answered it waits this much longer
 * for the rest, not its whole join wait: a silent peer (a Sybil that never answers) held every
 * join for joinWaitMs (security review, finding 15); with a majority rule, one silent peer beside
 * one honest one still did (the verify-flood bench lost 8.6 s at its start).
 */
export const HEADS_GRACE_MS = 2000;

/**
 * The head of `peers` past ours (`above`; -1 when none answers) and a peer at it: see `plausibleHead`. Each ask ends
 * after `timeoutMs`; once one answered, the rest get HEADS_GRACE_MS (a silent peer held every
 * catch-up for the whole request timeout; waiting for a majority let one silent peer beside one
 * honest one, or a crowd of them, hold a join for its whole wait).
 */
export async function askPeersHead(
libp2p: SwarmNode,
runId: string,
peers: PeerId[],
above: number,
timeoutMs = defaultSyncOptions.requestTimeoutMs,
): Promise<{ head: number; peer?: PeerId; answered: number }> {
  const claims: { head: number; peer: PeerId }[] = [];
  let answered = 0;
  await new Promise<void>((done) => {
    let settled = 0;
    let grace: ReturnType<typeof setTimeout> | undefined;
    if (peers.length === 0) return done();
    for (const peer of peers) {
      fetchChecksum(libp2p, peer, runId, undefined, Math.max(1, timeoutMs))
        .then((h) => {
          answered++;
          if (h.known) claims.push({ head: h.iteration, peer });
        }, () => {})
        .finally(() => {
          if (++settled === peers.length) {
            clearTimeout(grace);
            done();
          } else if (answered > 0 && grace === undefined) grace = setTimeout(done, HEADS_GRACE_MS);
        });
    }
  });
  return { ...plausibleHead([...claims], above), answered };
}

/**
 * The head we catch up to, from the heads peers claim past ours (`above`): the highest that a
 * second distinct peer claims too (the second highest of them), or the only one. A claim is free:
 * one peer's 2^53 forced the snapshot path, and then its anchor (security review, findings 8 and
 * 15). Capped so, one liar among peers ahead moves the target no further than an honest claim,
 * and what one peer alone is further ahead comes later by its verified commits (gossip, pullFrom),
 * never by its word. Claims at or behind ours say nothing about how far ahead the swarm is: a
 * joiner starting beside another must not take its 0 for the swarm's head.
 */
export function plausibleHead<P>(claims: readonly { head: number; peer: P }[], above = -1): { head: number; peer?: P } {
  const sorted = claims.filter((c) => c.head > above).sort((a, b) => b.head - a.head);
  const at = sorted[Math.min(1, sorted.length - 1)];
  return at ? { head: at.head, peer: at.peer } : { head: -1 };
}
