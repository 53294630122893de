/**
 * What the daemon does with each validated gossip message (network/gossip.ts validates): the
 * contributions and commits go to the rounds, a heartbeat to the sync checks: a checksum that
 * differs from ours for the same iteration starts a check with peers, a head far ahead a pull; a
 * fraud proof to the audits, which recompute it (a false one costs its auditor).
 */
import { toHex } from "../protocol/bytes.js";
import { peerIdString } from "../protocol/signing.js";
import type { Audits } from "./chain/audits.js";
import { commitFromWire } from "./chain/commit-wire.js";
import type { Rounds } from "./chain/rounds.js";
import type { Gossip } from "./network/gossip.js";
import type { Logger } from "./ground/index.js";
import type { RoundsEventHandler } from "./rounds-events.js";
import type { Repair } from "./sync/repair.js";

export interface GossipHandlerParts {
  readonly gossip: Gossip;
  readonly rounds: Rounds;
  /** Its pull of commits on a hint (at most once a round). */
  readonly events: Pick<RoundsEventHandler, "pullOnHint">;
  readonly log: Logger;
  /** Built after the daemon starts listening (messages may come before): read when needed. */
  readonly repair: () => Repair;
  /** Runs a promise in the background with the daemon as its owner (failures logged). */
  readonly detach: (promise: Promise<unknown>, what: string) => void;
  /** Audits by recomputation: they check gossiped fraud proofs (and charge false ones). */
  readonly audits: Audits;
  /** Whether a peer's hint is worth a pull (catch-up's record of its last one); absent: always. */
  readonly hintWorth?: (peer: string) => boolean;
}

/** Validated gossip -> the rounds (contributions, commits) and the sync checks (heartbeats). */
export function listenToGossip(p: GossipHandlerParts): void {
  const { rounds } = p;
  /** When a heartbeat last triggered a checksum check (at most one a second). */
  let heartbeatCheckAt = 0;
  p.gossip.listen({
    contribution: (m, author) =>
      rounds.onContribution(
        { author: { id: author, joinedAt: m.joinedAt }, payload: m.payload, signature: m.signature, ...(m.staleness ? { staleness: m.staleness } : {}) },
        m.iteration,
        m.parentHash,
      ),
    // A copy: gossip hands a view into its frame, and these bytes are kept and served. The
    // validator ran checkCommit (signatures); the rounds check rank and checksum.
    commit: (m, _signer, data) => rounds.onCommit({ commit: commitFromWire(m), encoded: data.slice() }),
    leave: (_m, author) => p.log.info({ peer: author }, "peer left"),
    heartbeat: (h, author) => {
      // Same iteration, other weights: a fork or a fault; find out now, not at the next check.
      const mine = rounds.checksumAt(h.iteration);
      const now = Date.now();
      if (mine !== undefined && mine !== toHex(h.checksum) && !p.repair().busy && now - heartbeatCheckAt > 1000) {
        heartbeatCheckAt = now;
        p.detach(p.repair().verifyWithPeers(h.iteration, "a peer's heartbeat checksum differs"), "heartbeat check");
      }
      // A peer claims to be two or more iterations ahead: a hint, not proof. Fetch its commits
      // (at most once a round) and apply those that chain onto ours; the claim itself neither
      // stops our proposing nor starts a catch-up.
      // A peer whose last hint was not borne out is not asked again for a while: asked first, so
      // its heartbeats do not take the one pull a round from honest hints (finding 5).
      if (h.iteration > rounds.head + 1 && p.hintWorth?.(author) !== false) p.events.pullOnHint(author, "commits pulled on a heartbeat hint");
    },
    proof: (m, auditor) => p.audits.takeProof({ iteration: m.iteration, commitHash: m.commitHash, accused: peerIdString(m.accused) }, auditor),
  }, (author, iteration) => {
    // A newcomer not waited for: the budget of rounds that waited for newcomers in vain is spent (attack 9).
    if (rounds.noteLate(author, iteration) === "refused") p.log.debug({ author, iteration }, "late newcomer not waited for");
  });
}
