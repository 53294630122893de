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
import { setTimeout as sleep } from "node:timers/promises";
import { randomInt } from "node:crypto";
import type { PeerId } from "@libp2p/interface";
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { admissionFrom, PROPOSER_WINDOW, rankFits } from "../chain/admission.js";
import { type ChainedCommit, type EncodedCommit } from "../chain/commit.js";
import { preferredAtStartBecause, preferredBecause, prefers, prefersAtStart } from "../chain/fork-choice.js";
import { PENALTY } from "../chain/penalties.js";
import type { Metrics } from "../observe/metrics.js";
import { checksum } from "../../training/params.js";
import type { CatchUp, SyncParts } from "./catch-up.js";
import { FORK_SEARCH_MS, findFork, linkedRun, timeoutBy } from "./fork-search.js";
import { fetchChecksum, fetchCommits } from "./protocols.js";
import type { Snapshot, SnapshotStore } from "./snapshot-store.js";
import { BoundedMap } from "../ground/index.js";

/** What a checksum check with peers found: all that answered agree, not yet (busy, a peer behind or dissenting), or our state moved (repair, fork switch). */
export type CheckOutcome = "agreed" | "pending" | "moved";

export interface RepairOptions {
  /** One deadline for each fork search with a peer (fork-search.ts), and for a hinted fork's one-step fetches. */
  readonly forkSearchMs: number;
  /** A deep fork check that held the one slot this long without a switch marks its peer slow. */
  readonly slowCheckMs: number;
  /** How long a slow peer is not checked again, doubled for each slow check in a row, up to quietMaxMs. */
  readonly quietMs: number;
  readonly quietMaxMs: number;
}

export const defaultRepairOptions: RepairOptions = {
  // A search against an honest peer takes one to six pages; 32 probes x 10 s held the slot 5 min.
  forkSearchMs: FORK_SEARCH_MS,
  // An honest search takes about a second a page under the fuzz's load; a dissenter answering
  // each probe just inside the timeout, the whole forkSearchMs.
  slowCheckMs: 10_000,
  // Long enough that a slow dissenter holds the slot a small share of the time (30 s of 60 s at
  // first, 30 s of 8 min after four slow checks in a row).
  quietMs: 30_000,
  quietMaxMs: 8 * 60_000,
};
/** Peers whose slowness is remembered (the oldest forgotten first): bounds the table, not the defence. */
const QUIET_PEERS = 1024;
/** Peers a fork hinted by an unchained commit is searched with: its proposer, then a few others at random. */
const HINTED_FORK_PEERS = 3;

export class Repair {
  private resolvingFork = false;
  /** True while a deep fork is being resolved (resolveDeepFork). */
  private deepForkBusy = false;
  /**
   * Peers whose last deep fork checks held the slot for long without a switch, and until when
   * they are not checked again: a dissenter (hinting by heartbeats or unchained commits) cannot
   * keep the slot for itself while a real fork with another peer waits (finding 9).
   */
  private readonly quiet = new BoundedMap<string, { until: number; slow: number }>(QUIET_PEERS);

  constructor(
    private readonly s: SyncParts,
    private readonly catchUp: CatchUp,
    private readonly snapshots: SnapshotStore,
    private readonly metrics: Metrics | null,
    private readonly opts: RepairOptions = defaultRepairOptions,
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
  async verifyWithPeers(iteration: number, reason: string): Promise<CheckOutcome> {
    const { fix, peers, rounds, libp2p, runId, log } = this.s;
    if (fix.busy) return "pending";
    if (!this.stateHolds()) {
      await this.repair("our state fails the verified chain; repairing", `state fails the verified chain (${reason})`);
      return "moved";
    }
    if (reason !== "periodic" && peers.connected().length < 3) await this.catchUp.dialAuthors();
    const connected = peers.connected();
    if (connected.length === 0) return "agreed";
    const mine = rounds.checksumAt(iteration);
    const pick = shuffled(connected).slice(0, reason === "periodic" ? 1 : 3);
    const answers = await Promise.allSettled(pick.map((p) => fetchChecksum(libp2p, p, runId, iteration)));
    // Each with the iteration its checksum differs from ours at: the chains part at or before it.
    const dissenters = pick
      .filter((_, i) => {
        const a = answers[i];
        return a.status === "fulfilled" && a.value.known && toHex(a.value.checksum) !== mine;
      })
      .map((peer) => ({ peer, near: iteration }));
    // A peer that answered but does not hold `iteration` yet (behind us, or on a shorter fork) is
    // checked at its own head: a node alone on a losing fork trains faster than the swarm, so
    // every peer is behind it and, asked only at its head, it would never meet a dissenter (the
    // fuzz run's node that trained alone for good, 2026-11-28).
    const behindPeers = pick.filter((_, i) => {
      const a = answers[i];
      return a.status === "fulfilled" && !a.value.known;
    });
    const theirHeads = await Promise.allSettled(behindPeers.map((p) => fetchChecksum(libp2p, p, runId)));
    behindPeers.forEach((p, i) => {
      const h = theirHeads[i];
      if (h.status !== "fulfilled" || !h.value.known) return;
      const ours = rounds.checksumAt(h.value.iteration);
      if (ours !== undefined && toHex(h.value.checksum) !== ours) dissenters.push({ peer: p, near: h.value.iteration });
    });
    const known = answers.filter((a) => a.status === "fulfilled" && a.value.known).length;
    this.metrics?.checksumChecks.inc(known);
    this.metrics?.checksumMismatches.inc(dissenters.length);
    const behind = behindPeers.length > 0;
    if (dissenters.length === 0) {
      if (known > 0) log.debug({ iteration, peers: known }, "checksum verified");
      return behind ? "pending" : "agreed";
    }
    // Each in turn: after switching to a better chain, a still better one wins over that.
    let switched = false;
    for (const { peer, near } of dissenters) switched = (await this.resolveDeepFork(peer, near)) || switched;
    if (switched) return "moved";
    log.warn(
      { iteration, mine, peers: known, dissenting: dissenters.length },
      "checksum disagreement is only a hint: our state holds on the verified chain; keeping it",
    );
    return "pending";
  }

  /**
   * At the run's end, before leaving: checks `iteration` with peers until each that answers holds
   * our checksum there, so a peer on another fork or still behind (a healed partition) settles
   * while we still serve it. A dissenter meets the fork choice, which may move us back (the caller
   * then trains on). Bounded by `waitMs`: a peer that never agrees cannot keep us.
   */
  async settleAtEnd(iteration: number, waitMs: number, pauseMs: number, signal: AbortSignal): Promise<CheckOutcome> {
    const until = Date.now() + waitMs;
    for (;;) {
      const outcome = this.busy ? "pending" : await this.verifyWithPeers(iteration, "final").catch((): CheckOutcome => "pending");
      // Moved onto a chain that also reached the end: check that one too.
      const settled = outcome === "agreed" || (outcome === "moved" && this.head < iteration);
      if (settled || Date.now() + pauseMs > until || signal.aborted) return outcome;
      await sleep(pauseMs);
    }
  }

  /**
   * Replaces our state with a snapshot that a verified commit of our own chain vouches for (no
   * vote: see snapshot-fetch.ts), then replays verified commits from peers.
   */
  async repair(message: string, reason: string): Promise<void> {
    const { fix, peers, log } = this.s;
    if (fix.busy) return;
    this.metrics?.repairs.inc();
    this.s.faults("repair", message, { iteration: this.head, peer: null, reason });
    await fix.run({ restart: "always", forgetPeersHead: false }, async () => {
      try {
        if (this.fromOwnChain()) {
          await this.catchUp.replayCommits((await this.catchUp.peersHead(peers.connected())).head);
          log.info({ iteration: this.head, checksum: this.s.replica.checksum() }, "repaired");
          return;
        }
        const snap = await this.catchUp.downloadSnapshot(null);
        await this.catchUp.adoptSnapshot(snap, "state repaired from snapshot", reason);
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
   * Repairs with no peer: the newest snapshot we keep whose weights still hash to our chain's
   * checksum there, then our own applied commits from it, each checked against its checksum (a
   * flipped bit in the replica after the snapshot was taken: a few iterations, no download).
   * False, with nothing changed, when no snapshot qualifies; false after the jump if a replayed
   * commit does not check out (the download path then replaces the state).
   */
  private fromOwnChain(): boolean {
    const { rounds, log } = this.s;
    const base = this.snapshots.all().find((x) => x.iteration < this.head && this.onOurChain(x) && checksum(x.weights) === x.checksum);
    if (!base) return false;
    const replay = rounds.appliedCommits().filter((c) => c.iteration >= base.iteration);
    rounds.jumpTo(base.weights.slice(), base.iteration, base.checksum, base.iteration > 0 ? (rounds.commitAt(base.iteration - 1) ?? null) : null);
    const failed = this.replayChecked(replay);
    if (failed) {
      log.warn({ iteration: failed.commit.iteration }, "own commit did not check out replayed from our snapshot; downloading one");
      return false;
    }
    log.info({ from: base.iteration, to: this.head }, "state rebuilt from our own snapshot and commits");
    return true;
  }

  /**
   * Snapshot `x` lies on our chain: its checksum is our chain's there (one kept from before a jump
   * to another chain is not), and we hold the commit it follows. The initial state only while we
   * hold the chain from its start: a node whose chain begins at a snapshot would otherwise replay
   * from iteration 0, where a snapshot is one download.
   */
  private onOurChain(x: Snapshot): boolean {
    const { rounds } = this.s;
    return rounds.checksumAt(x.iteration) === x.checksum && rounds.commitAt(x.iteration === 0 ? 0 : x.iteration - 1) !== undefined;
  }

  /** Applies `commits` from our head on, in order, each checked against its checksum field: the first that fails, or null (a gap ends it). */
  private replayChecked(commits: readonly EncodedCommit[]): EncodedCommit | null {
    const { rounds } = this.s;
    for (const c of commits) {
      if (c.commit.iteration !== this.head) break;
      rounds.onCommit(c);
      if (rounds.checksumAt(this.head) !== toHex(c.commit.checksum)) return c;
    }
    return null;
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
    const { iteration, prevHash, proposer } = unchained.commit;
    // Resolved only when the commit's parent is on our chain: our head passing `iteration` is
    // not proof (while we fetch, we may go on committing alone on our own side of the fork; that
    // once ended the fork search with "fork resolved" and left the node on a losing fork).
    const resolved = () => rounds.appliedCommits().some((c) => equalBytes(c.hash, prevHash));
    // The proposer first: it holds the commit's parent. Then the others (some may be hostile and
    // only answer at the request timeout).
    // At most HINTED_FORK_PEERS, the others at random, in one deadline: the commit is anyone's to
    // gossip, and every connected peer asked in turn at 10 s each held the node's fixes for minutes.
    const others = shuffled(peers.connected().filter((p) => p.toString() !== proposer));
    const order = [...peers.connected().filter((p) => p.toString() === proposer), ...others].slice(0, HINTED_FORK_PEERS);
    const until = Date.now() + this.opts.forkSearchMs;
    this.resolvingFork = true;
    try {
      for (const peer of order) {
        if (resolved() || timeoutBy(until) === 0) break;
        const got = await fetchCommits(libp2p, peer, runId, iteration - 1, timeoutBy(until)).catch(() => []);
        const prev = this.catchUp.verifiedReply(peer, got).find((c) => c.commit.iteration === iteration - 1);
        if (!prev) continue;
        rounds.onCommit(prev);
        if (this.head === iteration) rounds.onCommit(unchained);
      }
      if (resolved()) {
        log.info({ iteration }, "fork resolved");
        return;
      }
      for (const peer of order) if (await this.resolveDeepFork(peer, iteration)) return;
      await this.verifyWithPeers(this.head, "unresolved fork");
    } finally {
      this.resolvingFork = false;
    }
  }

  /**
   * A fork deeper than one step with `peer`: find the first iteration t where its chain and ours
   * differ (findFork), and let the fork choice decide between its commit t and ours, over the
   * authors of commit t-1 that both chains share. When its side wins, rewind to a snapshot of ours
   * from before the fork and replay its commits, each checked against the checksum we compute
   * ourselves; when the fork is older than every snapshot we keep (a long partition), download its
   * side's state, vouched for by its linked run of verified commits from commit t-1 on. The peer's
   * word is never taken for the state. Both sides apply the same rule, so they converge on the
   * same chain. True when we switched.
   */
  private async resolveDeepFork(peer: PeerId, near?: number): Promise<boolean> {
    // One at a time: checks started together would each find the same fork and switch again.
    if (this.deepForkBusy) {
      this.s.log.debug({ peer: peer.toString(), reason: "another deep fork check is running" }, "deep fork: no switch");
      return false;
    }
    const id = peer.toString();
    const quiet = this.quiet.get(id);
    if (quiet && Date.now() < quiet.until) {
      this.s.log.debug({ peer: id, reason: "its last checks held the slot without a switch", ms: quiet.until - Date.now() }, "deep fork: no switch");
      return false;
    }
    this.deepForkBusy = true;
    const started = Date.now();
    let switched = false;
    try {
      switched = await this.tryDeepFork(peer, near);
      return switched;
    } finally {
      this.deepForkBusy = false;
      const ms = Date.now() - started;
      this.noteCheck(id, switched, ms);
      // How long the slot was held (every other check is turned away meanwhile).
      this.s.log.debug({ peer: id, near, switched, ms }, "deep fork check done");
    }
  }

  /** Remembers a slow check without a switch (the peer is quiet for a doubling while), forgets a fast one. */
  private noteCheck(id: string, switched: boolean, ms: number): void {
    const before = this.quiet.get(id);
    this.quiet.delete(id);
    if (switched || ms < this.opts.slowCheckMs) return;
    const slow = (before?.slow ?? 0) + 1;
    this.quiet.set(id, { until: Date.now() + Math.min(this.opts.quietMaxMs, this.opts.quietMs * 2 ** (slow - 1)), slow });
  }

  private async tryDeepFork(peer: PeerId, near?: number): Promise<boolean> {
    const { rounds, runId, log } = this.s;
    // Why no switch, at debug: a node left on a losing side shows which check kept it there.
    const no = (reason: string, t?: number): false => {
      log.debug({ peer: peer.toString(), iteration: t, reason }, "deep fork: no switch");
      return false;
    };
    const found = await findFork(this.s, this.catchUp, peer, near, Date.now() + this.opts.forkSearchMs).catch((err: Error) => `no fork found with this peer: ${err.message}`);
    if (typeof found === "string") return no(found);
    // Another fix (a switch found by a concurrent check) ran meanwhile: what we found is stale.
    if (this.s.fix.busy) return no("another fix ran meanwhile");
    const { t, common, fork, next, afterNext } = found;
    // A side whose commit carries a false accusation (or an excluded author's entry) never wins.
    if (rounds.refusedForExclusions(fork.hash)) return no("its side's commit was refused for exclusions", t);
    const ours = new Map(rounds.appliedCommits().map((l) => [l.iteration, l]));
    const mine = ours.get(t);
    if (!mine) return no("our commit at the fork is no longer kept", t);
    // Both sides share commit t-1 (or the chain's start) and the window before it: the authors t
    // waits for and the window's proposers, a set fixed before the fork, are the only ones whose
    // building on a side counts (see fork-choice.ts). The proposers too, so that one thin commit
    // t-1 (two of four authors, under load) cannot leave the swarm's side a single vote.
    const admission = admissionFrom(runId, t, [...ours.values()].filter((l) => l.iteration < t).slice(-PROPOSER_WINDOW - 1).map((l) => l.commit));
    const eligible = common ? [...admission.expected, ...admission.proven] : null;
    const { holds, rank } = rankFits(runId, admission, fork.commit);
    if (!holds) {
      this.s.blame?.(peer.toString(), `served a fork commit at ${t} claiming rank ${fork.commit.rank}, holding ${rank}`, PENALTY.usurp);
      return no("its commit claims a rank it does not hold", t);
    }
    const theirSide = { at: fork, next: next?.commit, afterNext: afterNext?.commit };
    const mySide = { at: mine, next: ours.get(t + 1)?.commit, afterNext: ours.get(t + 2)?.commit };
    const endorsers = new Set(eligible ?? []);
    // At the chain's start nobody shares a commit t-1: the authors of our own chain vote (finding 7).
    const held = new Set(rounds.appliedCommits().flatMap((c) => c.commit.entries.map((e) => e.author.id)));
    const theyWin = common ? prefers(theirSide, mySide, endorsers) : prefersAtStart(theirSide, mySide, held, this.s.self);
    const why = (a: typeof theirSide, b: typeof theirSide) => (common ? preferredBecause(a, b, endorsers) : preferredAtStartBecause(a, b, held, this.s.self));
    if (!theyWin) return no(`our side wins: ${why(mySide, theirSide)}`, t);
    // A snapshot of ours on the shared part of the chain: its anchor (commit base-1) is ours and theirs.
    const base = this.snapshots.all().find((x) => x.iteration <= t && this.onOurChain(x));
    if (!base && !common) return no("no snapshot of ours before the fork and no shared commit", t);
    const reason = why(theirSide, mySide);
    this.s.faults("forkSwitch", "switching to a better fork", { iteration: t, peer: peer.toString(), reason, base: base?.iteration ?? null, head: this.head });
    if (base) await this.replayFrom(peer, base, base.iteration > 0 ? (ours.get(base.iteration - 1) ?? null) : null);
    else if (common) await this.adoptWinningSide(peer, common, mine);
    return true;
  }

  /** Rewinds to our snapshot `base` (before the fork) and replays `peer`'s verified commits from it. */
  private async replayFrom(peer: PeerId, base: Snapshot, anchor: ChainedCommit | null): Promise<void> {
    const { fix, rounds, libp2p, runId, log } = this.s;
    const from = Math.max(0, base.iteration - 1);
    const served = this.catchUp.verifiedReply(peer, await fetchCommits(libp2p, peer, runId, from).catch(() => []));
    const replay = base.iteration > 0 ? served.slice(1) : served;
    await fix.run({ restart: "if-active", forgetPeersHead: true }, async () => {
      rounds.jumpTo(base.weights.slice(), base.iteration, base.checksum, anchor);
      // Our snapshots past the base are of the side we leave: never serve them as our chain's.
      this.snapshots.retain((x) => x.iteration <= base.iteration);
      const failed = this.replayChecked(replay);
      if (failed) {
        fix.busy = false;
        await this.repair("replayed fork does not check out; repairing", `the fork's commit ${failed.commit.iteration} from ${peer.toString()} did not give its checksum`);
        return;
      }
      // One page replayed: the rest of the winner's chain, so we do not start proposing hundreds
      // of iterations behind it (a new fork) before a later check finds it again.
      await this.catchUp.replayCommits((await this.catchUp.peersHead([peer])).head);
      log.info({ iteration: this.head, checksum: this.s.replica.checksum() }, "fork switched");
    });
  }

  /**
   * The fork is older than every snapshot we keep: take the winning side's state as a snapshot
   * that its linked run of verified commits from `common` on vouches for, then replay its commits.
   */
  private async adoptWinningSide(peer: PeerId, common: ChainedCommit, mine: ChainedCommit): Promise<void> {
    const { fix, peers, rounds, log } = this.s;
    const run = await linkedRun(this.s, this.catchUp, peer, common).catch((err: Error) => {
      log.warn({ err: err.message }, "fork switch failed; will retry at the next check");
      return null;
    });
    // Our chain moved meanwhile (a repair, a catch-up): the choice was made on what no longer holds.
    const still = rounds.appliedCommits().find((c) => c.iteration === mine.commit.iteration);
    if (!run) return;
    if (fix.busy || !still || !equalBytes(still.hash, mine.hash)) {
      log.debug({ peer: peer.toString(), iteration: mine.commit.iteration, reason: fix.busy ? "another fix is running" : "our chain moved" }, "fork switch put off");
      return;
    }
    await fix.run({ restart: "if-active", forgetPeersHead: true }, async () => {
      try {
        const holders = [peer, ...peers.connected().filter((p) => !p.equals(peer))];
        const snap = await this.catchUp.downloadOnRun(run, holders);
        // The chain behind the winner's snapshot is ours up to the fork and its verified run after
        // it: kept at once, so the next fork check finds the commit both sides share without
        // reading thousands of commits from peers under load first.
        const behind = [...rounds.appliedCommits().filter((c) => c.iteration <= common.commit.iteration), ...run];
        await this.catchUp.adoptSnapshot(snap, "fork switched to the winning side's snapshot", `the fork at ${mine.commit.iteration} is older than every snapshot kept`, behind);
        // Every snapshot we held is of the side we left (the fork is older than all of them).
        this.snapshots.retain(() => false);
        await this.catchUp.replayCommits(Math.max(snap.iteration + 1, run[run.length - 1].commit.iteration + 1));
        log.info({ iteration: this.head, checksum: this.s.replica.checksum() }, "fork switched");
      } catch (err) {
        log.warn({ err: (err as Error).message }, "fork switch failed; will retry at the next check");
      }
    });
  }

}

/** `peers` in a random order (Fisher-Yates with the CSPRNG: which peer we ask is not replicated state, nor a hint's to choose). */
function shuffled<T>(peers: readonly T[]): T[] {
  const out = [...peers];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
