/**
 * Keeping our state right (brief section 5, invariant 4): compare checksums with peers, repair
 * from the snapshot and commits a majority agrees on, and resolve forks by the fork choice, one
 * step back (a lost commit) or deeper (from a snapshot both chains share). Never on a single
 * peer's word: a replayed fork is checked against the checksums we compute ourselves.
 */
import { randomInt } from "node:crypto";
import type { PeerId } from "@libp2p/interface";
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { chained, type EncodedCommit, rankOf } from "../chain/commit.js";
import { prefers } from "../chain/fork-choice.js";
import { commitFromBytes } from "../chain/commit-wire.js";
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
   * Compares our checksum after `iteration` with peers'. When peers disagree with us and agree
   * among themselves (more than one of them where there are several), we repair from them.
   */
  async verifyWithPeers(iteration: number, reason: string): Promise<void> {
    const { fix, peers, rounds, libp2p, runId, log } = this.s;
    if (fix.busy) return;
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
    const sums = answers.flatMap((a) =>
      a.status === "fulfilled" && a.value.known ? [toHex(a.value.checksum)] : [],
    );
    if (sums.length === 0) return;
    const disagree = sums.filter((s) => s !== mine);
    this.metrics?.checksumChecks.inc(sums.length);
    this.metrics?.checksumMismatches.inc(disagree.length);
    if (disagree.length === 0) {
      log.debug({ iteration, peers: sums.length }, "checksum verified");
      return;
    }
    if (reason === "periodic" && connected.length > 1) {
      // One peer disagrees: ask more before deciding who is wrong.
      return this.verifyWithPeers(iteration, "periodic check disagreed");
    }
    // Repair only when at least two peers agree with each other against us, and outnumber those
    // that agree with us: a single peer's word never overrides our state.
    const agreeWithMe = sums.length - disagree.length;
    const counts = new Map<string, number>();
    for (const s of disagree) counts.set(s, (counts.get(s) ?? 0) + 1);
    const top = Math.max(...counts.values());
    if (top >= 2 && top > agreeWithMe) {
      log.warn({ iteration, mine, theirs: disagree[0], peers: sums.length }, "diverged from peers; repairing");
      await this.repair();
    } else {
      // No majority (typically two nodes): if the disagreement is a fork, the fork choice
      // decides, the same way on both sides.
      const dissenters = pick.filter((_, i) => {
        const a = answers[i];
        return a.status === "fulfilled" && a.value.known && toHex(a.value.checksum) !== mine;
      });
      // Each in turn: after switching to a better chain, a still better one wins over that.
      let switched = false;
      for (const peer of dissenters) switched = (await this.resolveDeepFork(peer)) || switched;
      if (switched) return;
      log.warn(
        { iteration, mine, peers: sums.length, agreeWithMe },
        "checksum disagreement without a majority against us; keeping our state",
      );
    }
  }

  /** Replaces our state with the snapshot peers agree on, then replays their commits. */
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
   * checksums with peers (and repair on a majority).
   */
  async resolveFork(unchained: EncodedCommit): Promise<void> {
    if (this.busy) return;
    const { peers, rounds, libp2p, runId, log } = this.s;
    const { iteration } = unchained.commit;
    this.resolvingFork = true;
    try {
      for (const peer of peers.connected()) {
        const got = await fetchCommits(libp2p, peer, runId, iteration - 1).catch(() => []);
        const prev = got.map(commitFromBytes).find((c) => c.commit.iteration === iteration - 1);
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
      const theirs = encoded.map((bytes) => chained(commitFromBytes(bytes)));
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
        this.s.blame?.(peer.toString(), `served a fork commit at ${t} claiming rank ${fork.commit.rank}, holding ${rank}`);
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
