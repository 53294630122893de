/**
 * Keeping our state right (brief section 5, invariant 4) with the verified chain as the only
 * truth, never a head count (issue 11, attack 6). Peers' checksums are hints: a disagreement
 * makes us check our own state against the verified commit for our head (a self-check: no peer
 * needed), and try the fork choice against the dissenter. We repair only when our own state fails
 * the chain (that self-check, or the rounds' own verdict "diverged"), and then from a snapshot that
 * matches a verified commit of our chain (snapshot-fetch.ts) plus verified commits replayed. Two
 * honest nodes on different valid forks settle by the fork choice, one step back (a lost commit)
 * or deeper (from a snapshot both chains share).
 */
import { randomInt } from "node:crypto";
import type { PeerId } from "@libp2p/interface";
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { type ChainedCommit, chained, type EncodedCommit, rankOf } from "../chain/commit.js";
import { prefers } from "../chain/fork-choice.js";
import { PENALTY } from "../chain/penalties.js";
import type { Metrics } from "../observe/metrics.js";
import type { CatchUp, SyncParts } from "./catch-up.js";
import { fetchChecksum, fetchCommits } from "./protocols.js";
import type { SnapshotStore } from "./snapshot-store.js";

export class Repair {
  private resolvingFork = false;

  constructor(
    private readonly s: SyncParts,
    private readonly catchUp: CatchUp,
    private readonly snapshots: SnapshotStore,
    private readonly metrics: Metrics | null,
  ) {}

  /** True while a repair, catch-up or fork resolution runs. */
  get busy(): boolean {
    return this.s.fix.busy || this.resolvingFork;
  }

  private get head(): number {
    return this.s.replica.iteration;
  }

  /**
   * Our state against the verified chain, no peer asked: the checksum of our weights now must be
   * the checksum field of the verified commit we applied last (or, with none, the one we started
   * from). A flipped bit, or a state a diverged commit left, fails it.
   */
  stateHolds(): boolean {
    const { rounds, replica } = this.s;
    const last = rounds.lastApplied();
    const expected =
      last && last.commit.iteration === replica.iteration - 1 ? toHex(last.commit.checksum) : rounds.checksumAt(replica.iteration);
    return expected === undefined || replica.checksum() === expected;
  }

  /**
   * Checks our state after `iteration`: first against the verified chain (repair if it fails),
   * then asks peers for theirs. A peer that disagrees is a hint, never a vote: the fork choice
   * against its chain decides (resolveDeepFork); our state is never replaced on its word.
   */
  async verifyWithPeers(iteration: number, reason: string): Promise<void> {
    const { fix, peers, rounds, libp2p, runId, log } = this.s;
    if (fix.busy) return;
    if (!this.stateHolds()) {
      log.warn({ iteration: this.head, reason }, "our state fails the verified chain; repairing");
      await this.repair();
      return;
    }
    if (reason !== "periodic" && peers.connected().length < 3) await this.catchUp.dialAuthors();
    const connected = peers.connected();
    if (connected.length === 0) return;
    const mine = rounds.checksumAt(iteration);
    // A random sample (Fisher-Yates with the CSPRNG: which peer we ask is not replicated state).
    for (let i = connected.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [connected[i], connected[j]] = [connected[j], connected[i]];
    }
    const pick = connected.slice(0, reason === "periodic" ? 1 : 3);
    const answers = await Promise.allSettled(pick.map((p) => fetchChecksum(libp2p, p, runId, iteration)));
    const dissenters = pick.filter((_, i) => {
      const a = answers[i];
      return a.status === "fulfilled" && a.value.known && toHex(a.value.checksum) !== mine;
    });
    const known = answers.filter((a) => a.status === "fulfilled" && a.value.known).length;
    this.metrics?.checksumChecks.inc(known);
    this.metrics?.checksumMismatches.inc(dissenters.length);
    if (dissenters.length === 0) {
      if (known > 0) log.debug({ iteration, peers: known }, "checksum verified");
      return;
    }
    // Each in turn: after switching to a better chain, a still better one wins over that.
    let switched = false;
    for (const peer of dissenters) switched = (await this.resolveDeepFork(peer)) || switched;
    if (switched) return;
    log.warn(
      { iteration, mine, peers: known, dissenting: dissenters.length },
      "checksum disagreement is only a hint: our state holds on the verified chain; keeping it",
    );
  }

  /**
   * Replaces our state with a snapshot that a verified commit of our own chain vouches for (no
   * vote: see snapshot-fetch.ts), then replays verified commits from peers.
   */
  async repair(): Promise<void> {
    const { fix, peers, log } = this.s;
    if (fix.busy) return;
    this.metrics?.repairs.inc();
    this.metrics?.fault("repair");
    await fix.run({ restart: "always", forgetPeersHead: false }, async () => {
      try {
        const snap = await this.catchUp.downloadSnapshot(null);
        await this.catchUp.adoptSnapshot(snap, "state repaired from snapshot");
        await this.catchUp.replayCommits(
          Math.max(snap.iteration + 1, (await this.catchUp.peersHead(peers.connected())).head),
        );
        log.info({ iteration: this.head, checksum: this.s.replica.checksum() }, "repaired");
      } catch (err) {
        log.error({ err: (err as Error).message }, "repair failed; will retry at the next check");
      }
    });
  }

  /**
   * A commit that does not chain onto ours: usually a one-step fork whose other commit gossip
   * lost. Fetch the peers' commit for the previous iteration over the commits protocol and let
   * the fork choice decide; if we switch, the new commit chains and applies. Otherwise compare
   * checksums with peers (hints; repair only if our own state fails the chain).
   */
  async resolveFork(unchained: EncodedCommit): Promise<void> {
    if (this.busy) return;
    const { peers, rounds, libp2p, runId, log } = this.s;
    const { iteration } = unchained.commit;
    this.resolvingFork = true;
    try {
      for (const peer of peers.connected()) {
        const got = await fetchCommits(libp2p, peer, runId, iteration - 1).catch(() => []);
        const prev = this.catchUp.verifiedReply(peer, got).find((c) => c.commit.iteration === iteration - 1);
        if (!prev) continue;
        rounds.onCommit(prev);
        if (this.head === iteration) rounds.onCommit(unchained);
        if (this.head > iteration) {
          log.info({ iteration }, "fork resolved");
          return;
        }
      }
      for (const peer of peers.connected()) if (await this.resolveDeepFork(peer)) return;
      await this.verifyWithPeers(this.head, "unresolved fork");
    } finally {
      this.resolvingFork = false;
    }
  }

  /**
   * A fork deeper than one step with `peer`: find the first iteration where its chain and ours
   * differ, from a snapshot of ours that both chains share. When its commit there wins the fork
   * choice, rewind to that snapshot and replay its commits, each checked against the checksum
   * we compute ourselves (so the peer's word is never taken for the state). Both sides apply the
   * same rule, so they converge on the same chain. True when we switched.
   */
  private async resolveDeepFork(peer: PeerId): Promise<boolean> {
    const { fix, rounds, libp2p, runId, log } = this.s;
    const ours = new Map(rounds.appliedCommits().map((l) => [l.commit.iteration, l]));
    for (const base of this.snapshots.all()) {
      if (base.iteration > this.head) continue;
      const from = Math.max(0, base.iteration - 1);
      const encoded = await fetchCommits(libp2p, peer, runId, from).catch(() => []);
      const theirs: ChainedCommit[] = this.catchUp.verifiedReply(peer, encoded).map(chained);
      // The base must sit on both chains: their commit before it is ours. At the chain's start
      // (base 0, the initial weights every node shares) both chains begin at the zero hash.
      const anchor = base.iteration > 0 ? ours.get(base.iteration - 1) : undefined;
      if (theirs[0]?.commit.iteration !== from) continue;
      if (base.iteration > 0 && (!anchor || !equalBytes(theirs[0].hash, anchor.hash))) continue;
      const replay = base.iteration > 0 ? theirs.slice(1) : theirs;
      const fork = theirs.find((t) => {
        const mine = ours.get(t.commit.iteration);
        return mine !== undefined && !equalBytes(mine.hash, t.hash);
      });
      if (!fork) return false;
      const t = fork.commit.iteration;
      const mine = ours.get(t);
      if (!mine) return false;
      // Both sides share commit t-1 (or the chain's start): its authors rank proposers of t and
      // are the only ones whose building on a side counts (see fork-choice.ts).
      const common = ours.get(t - 1);
      const eligible = common ? common.commit.entries.map((e) => e.author.id) : null;
      const rank = rankOf(runId, t, eligible, fork.commit.proposer, fork.commit.entries.map((e) => e.author.id));
      if (rank !== fork.commit.rank) {
        this.s.blame?.(peer.toString(), `served a fork commit at ${t} claiming rank ${fork.commit.rank}, holding ${rank}`, PENALTY.usurp);
        return false;
      }
      const theirSide = { at: fork, next: theirs.find((c) => c.commit.iteration === t + 1)?.commit };
      const mySide = { at: mine, next: ours.get(t + 1)?.commit };
      if (!prefers(theirSide, mySide, new Set(eligible ?? []))) return false;
      log.warn({ iteration: fork.commit.iteration, base: base.iteration, peer: peer.toString() }, "switching to a better fork");
      this.metrics?.fault("forkSwitch");
      await fix.run({ restart: "if-active", forgetPeersHead: true }, async () => {
        rounds.jumpTo(base.weights.slice(), base.iteration, base.checksum, anchor ?? null);
        for (const t of replay) {
          if (t.commit.iteration !== this.head) break;
          rounds.onCommit(t);
          if (rounds.checksumAt(this.head) !== toHex(t.commit.checksum)) {
            log.warn({ iteration: t.commit.iteration }, "replayed fork does not check out; repairing");
            fix.busy = false;
            await this.repair();
            return;
          }
        }
        log.info({ iteration: this.head, checksum: this.s.replica.checksum() }, "fork switched");
      });
      return true;
    }
    return false;
  }
}
