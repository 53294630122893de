/**
 * Getting to the swarm's head: join (wait for peers, hear their heads), catch up (a snapshot when
 * far behind, then the commits after it), replay commits, and adopt a downloaded snapshot as our
 * state with the commit that produced it as the chain's anchor.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { PeerId } from "@libp2p/interface";
import { equalBytes, toHex } from "../../protocol/bytes.js";
import { MAX_COMMITS_PER_RESPONSE } from "../../protocol/limits.js";
import { decodeCommit } from "../../protocol/codec.js";
import type { Weights } from "../../training/params.js";
import type { Replica } from "../../training/replica.js";
import { CHAIN_KEEP, type ChainedCommit, type EncodedCommit } from "../chain/commit.js";
import type { Rounds } from "../chain/rounds.js";
import type { SwarmNode } from "../network/libp2p.js";
import type { Peers } from "../network/peers.js";
import { detach, type Logger } from "../ground/index.js";
import type { FaultReporter } from "../observe/faults.js";
import type { ChainFix } from "./chain-fix.js";
import { PENALTY } from "../chain/penalties.js";
import { ANCHOR_QUORUM, joinerReference, type ReplyWanted, verifiedReply } from "./anchor-run.js";
import { PullHints } from "./pull-hints.js";
import { chainBehind, excludedBy, holdersFirst, linkedTo } from "./chain-behind.js";
import { defaultSyncOptions, fetchCommits } from "./protocols.js";
import { askPeersHead, HEADS_GRACE_MS } from "./peers-head.js";
import { chunkLayout, fetchVerifiedSnapshot, MAX_SNAPSHOT_HOLDERS, type SnapshotFetchParts, type SnapshotReference, type VerifiedSnapshot } from "./snapshot-fetch.js";
import type { SnapshotPlanner } from "./snapshot-plan.js";

/**
 * How long a snapshot plan may be looked for in the DHT (from the lookup's start: a joiner starts
 * it while it hears its peers' heads) before the connected peers are asked without it.
 */
const PLAN_TIMEOUT_MS = 3000;
/** Catch-ups a joiner tries, JOIN_RETRY_MS apart, before it starts from its own state. */
const JOIN_CATCH_UP_ATTEMPTS = 4;
const JOIN_RETRY_MS = 2000;
/** Snapshot periods past the plausible head a joiner still asks about (a claim further is one peer's word). */
const SNAPSHOT_SLACK_PERIODS = 4;


/** What catching up and repairing work with. */
export interface SyncParts {
  readonly libp2p: SwarmNode;
  readonly runId: string;
  readonly self: string;
  readonly rounds: Rounds;
  readonly replica: Replica;
  readonly peers: Peers;
  readonly planner: SnapshotPlanner;
  readonly fix: ChainFix;
  readonly log: Logger;
  /** The state from a snapshot's verified bytes (float32 weights, or a packed model's words). */
  readonly decode: (bytes: Uint8Array) => Weights;
  /**
   * Charges a peer that served a commit failing verification (PENALTY.badReply) or snapshot
   * bytes a verified commit disproves (PENALTY.badSnapshot); absent: nobody is charged.
   */
  readonly blame?: (peer: string, reason: string, cost: number) => void;
  /** Logs and counts a handled fault (observe/faults.ts). */
  readonly faults: FaultReporter;
  /** Weights in the run's model (float32 or packed words): a snapshot has weightCount x 4 bytes. */
  readonly weightCount: number;
  /** The run's algorithm's payload check: served commits are checked as gossiped ones are (finding 13). */
  readonly payloadProblem?: (payload: Uint8Array, iteration: number) => string | null;
}

export interface JoinOptions {
  /** How long to look for peers before starting a chain alone. */
  readonly joinWaitMs: number;
  /** Wait (up to joinWaitMs) for this many peers before training. */
  readonly minPeers: number;
  /** Snapshot period: more than two periods behind, a snapshot is downloaded. */
  readonly checkEvery: number;
}

/** A verified snapshot and where its holders came from. */
export type FoundSnapshot = VerifiedSnapshot & { readonly via: string };

/** Snapshot iterations a repair tries (newest first), from the commits of our own chain. */
const REPAIR_CANDIDATES = 4;

export class CatchUp {
  /** Whose hints are worth a pull (finding 5: a liar's heartbeats are not an 8 MiB fetch each). */
  private readonly hints = new PullHints();
  /** A joiner's DHT snapshot lookup, started while it still hears its peers' heads. */
  private joinPlan: { lookup: ReturnType<SnapshotPlanner["plan"]>; startedAt: number } | null = null;

  constructor(
    private readonly s: SyncParts,
    private readonly opts: JoinOptions,
    /** Aborted when the daemon stops: ends the join wait. */
    private readonly signal: AbortSignal,
  ) {}

  private get head(): number {
    return this.s.replica.iteration;
  }

  /** At start: catch up with peers if there are any, then contribute. */
  async join(): Promise<void> {
    const { peers, rounds, log } = this.s;
    const deadline = Date.now() + this.opts.joinWaitMs;
    const waiting = () => Date.now() < deadline && !this.signal.aborted;
    // Bootstrap peers are dialled again while we know nobody (one may still be starting).
    const enough = await peers.waitFor(Math.max(1, this.opts.minPeers), deadline, this.signal);
    // Look for a snapshot in the DHT meanwhile, in case we turn out to be far behind.
    if (enough) this.joinPlan = { lookup: this.s.planner.plan(this.head + 1).catch(() => null), startedAt: Date.now() };
    // Hear every connected peer's head before deciding we are not behind: a peer still starting
    // (its sync protocols not yet registered) may hold commits we lack, and proposing those
    // iterations again would fork the chain.
    // Each round of asks ends by the deadline; once one answered, the rest get HEADS_GRACE_MS.
    let majoritySince = 0;
    while (waiting()) {
      const connected = peers.connected();
      const { answered } = await this.peersHead(connected, Math.min(defaultSyncOptions.requestTimeoutMs, deadline - Date.now()));
      if (answered >= connected.length) break;
      if (answered > 0) majoritySince ||= Date.now();
      if (majoritySince > 0 && Date.now() - majoritySince >= HEADS_GRACE_MS) break;
      await sleep(200);
    }
    // Who starts a new chain commits its first iteration at once (proposer-schedule.ts): the node
    // that waited for its quorum, or one that found nobody. One whose join wait ran out while
    // peers wait too may race others: it keeps the first round's ticks.
    const noChain = () => this.head === 0 && rounds.lastApplied() === undefined;
    let startsChain = false;
    const withPeers = peers.connected().length > 0;
    if (withPeers) {
      // A catch-up that failed (no anchor a quorum vouches for: two honest peers on a fork that
      // has not healed yet, or a liar among them) is tried again before this node would start a
      // chain of its own beside the swarm's (finding 8 made a lone peer's anchor not enough).
      for (let attempt = 1; !(await this.catchUp("joining")) && attempt < JOIN_CATCH_UP_ATTEMPTS && !this.signal.aborted; attempt++) {
        log.info({ attempt, of: JOIN_CATCH_UP_ATTEMPTS }, "catch-up failed while joining; trying again");
        await sleep(JOIN_RETRY_MS);
      }
      // Peers, but no chain yet: leave starting it to the node that waits for its quorum
      // (--min-peers), or to whoever's join wait ends first, instead of racing ahead alone.
      if (this.opts.minPeers === 0 && noChain()) {
        const until = Date.now() + this.opts.joinWaitMs;
        while (Date.now() < until && this.head === 0 && !this.signal.aborted) await sleep(50);
      } else startsChain = noChain();
    } else {
      log.info({ iteration: this.head }, "no peers found; starting the chain");
      startsChain = noChain();
    }
    this.joinPlan = null;
    rounds.start(startsChain, withPeers);
  }

  /**
   * Gets to the connected peers' head: a snapshot first when far behind, then their commits.
   * False when peers were ahead and it failed (nothing verified to move to); true otherwise.
   */
  async catchUp(reason: string): Promise<boolean> {
    const { fix, peers, rounds, log } = this.s;
    if (fix.busy) return true;
    const connected = peers.connected();
    const { head: best, peer: ahead } = await this.peersHead(connected);
    if (best <= this.head) {
      // Nobody we can ask is ahead after all (a stale report): we may propose again.
      rounds.forgetPeersHead();
      return true;
    }
    let failed = false;
    log.info({ reason, head: this.head, peersHead: best }, "catching up");
    // A node that was training goes back to training afterwards; at start-up, join does.
    await fix.run({ restart: "if-active", forgetPeersHead: true }, async () => {
      try {
        // Far behind (more than two snapshot periods): download the snapshot, then replay the
        // few commits after it. Close by, or when peers hold no snapshot ahead of us: replay.
        const farBehind = best - this.head > 2 * this.opts.checkEvery;
        const probe = farBehind
          ? []
          : await fetchCommits(this.s.libp2p, ahead ?? connected[0], this.s.runId, this.head).catch(() => []);
        if (probe.length === 0 || decodeCommit(probe[0]).iteration !== this.head) {
          // Up to SNAPSHOT_SLACK_PERIODS periods past the peers' head: the honest holders' latest
          // moves on while we ask (a fast swarm takes one every second or so).
          const snap = await this.downloadSnapshot(this.head + 1, best + SNAPSHOT_SLACK_PERIODS * Math.max(1, this.opts.checkEvery));
          if (snap.iteration > this.head)
            await this.adoptSnapshot(snap, "snapshot downloaded", `${best - this.head} iterations behind the peers (${reason})`);
        }
        await this.replayCommits(best);
        log.info({ iteration: this.head, checksum: this.s.replica.checksum() }, "caught up");
        detach(this.dialAuthors(), log, "author dials");
      } catch (err) {
        failed = true;
        log.error({ err: (err as Error).message }, "catch-up failed; starting from our own state");
      }
    });
    return !failed;
  }

  /** A commits reply, verified exactly like gossip (anchor-run.ts), only as far as `want`; the rounds check rank and checksum. */
  verifiedReply(peer: PeerId, got: readonly Uint8Array[], want: ReplyWanted = {}): EncodedCommit[] {
    return verifiedReply(this.s, peer, got, want);
  }

  /** Whether a hint from `peer` is worth a pull: its last one was proven, or it has none (pull-hints.ts). */
  hintWorth(peer: string): boolean {
    return this.hints.worth(peer);
  }

  /**
   * Feeds verified commits to the rounds in chain order from our head; returns how many applied.
   * A commit for our head must chain onto the one we applied last and pass the rounds' checks
   * (rank, checksum by applying), or nothing moves.
   */
  private applyReply(commits: readonly EncodedCommit[]): number {
    const before = this.head;
    for (const received of commits) {
      if (received.commit.iteration < this.head) continue;
      if (received.commit.iteration > this.head) break;
      if (!equalBytes(received.commit.prevHash, this.s.rounds.headHash)) break;
      const at = this.head;
      this.s.rounds.onCommit(received);
      if (this.head === at) break;
    }
    return this.head - before;
  }

  /**
   * A hint (a heartbeat, a commit past our head) that `peer` is ahead: fetch its commits from our
   * head and apply those that verify and chain onto ours. The claim alone changes nothing: no
   * passive mode, no snapshot; only verified commits chained by hash to ours move us. Returns
   * how many applied.
   */
  async pullFrom(peer: PeerId): Promise<number> {
    if (this.s.fix.busy || !this.hints.worth(peer.toString())) return 0;
    // A claimant that serves nothing (a liar, or a peer not ready) costs one failed request, and
    // its hints are not taken for a while after (pull-hints.ts). Only the commits chained onto our
    // head are verified: a static reply of pre-signed commits costs no signature check.
    const got = await fetchCommits(this.s.libp2p, peer, this.s.runId, this.head).catch(() => []);
    const applied = this.applyReply(this.verifiedReply(peer, got, this.fromHead()));
    this.hints.outcome(peer.toString(), applied > 0);
    return applied;
  }

  /** What a pull from our head can use: commits from it, chained onto the commit we applied last. */
  private fromHead(): ReplyWanted {
    return { from: this.head, after: this.s.rounds.headHash };
  }

  /**
   * After this process slept past a round deadline (SIGSTOP, a frozen VM): follow, fetch and
   * apply what peers committed meanwhile, then contribute and propose again. Only verified
   * commits chained onto ours move us; with no peer to ask (a lone node) the round goes on.
   */
  async afterStall(): Promise<void> {
    if (this.s.fix.busy) return;
    await this.s.fix.run({ restart: "if-active", forgetPeersHead: false }, async () => {
      if (this.s.peers.connected().length === 0) await this.dialAuthors();
      const before = this.head;
      await this.replayCommits("their head");
      this.s.log.info({ from: before, to: this.head }, "caught up after a stall");
    });
  }

  /**
   * Fetches and applies commits from peers until our head reaches `target` (the peers' head when
   * we started): chasing a moving head would never end on a fast swarm, and gossip delivers what
   * comes after. "their head": until a reply ends short of a full page, at its server's head when
   * it replied (after a stall, where we do not know the peers' head: page after page of a few
   * commits chasing a fast swarm kept a just-caught-up joiner out of the rounds for 2.7 s, e2e
   * swarm joiner, 2026-11-28).
   */
  async replayCommits(target: number | "their head"): Promise<void> {
    while (target === "their head" || this.head < target) {
      const connected = this.s.peers.connected();
      if (connected.length === 0) return;
      let got: EncodedCommit[] = [];
      for (const p of connected) {
        const bytes = await fetchCommits(this.s.libp2p, p, this.s.runId, this.head).catch(() => []);
        got = this.verifiedReply(p, bytes, this.fromHead());
        if (got.length > 0) break;
      }
      if (got.length === 0) return;
      // Nothing applied (the commits do not chain onto our head): stop; gossip or repair goes on.
      if (this.applyReply(got) === 0) return;
      if (target === "their head" && got.length < MAX_COMMITS_PER_RESPONSE) return;
    }
  }

  /**
   * A snapshot the verified chain vouches for (snapshot-fetch.ts): never chosen by how many peers
   * serve it. A joiner or a node catching up (minIteration set) asks its connected peers together
   * with the holders the DHT's expert records plan (hints only), and checks the snapshot against
   * our own commit at that iteration or, past our chain, against an anchor run (anchorRun). A
   * repair (minIteration null) asks only for snapshots at iterations of our own chain, checked
   * against our own verified commits.
   *
   * The plan is waited for (at most PLAN_TIMEOUT_MS from the lookup's start; a joiner starts it
   * while it hears its peers' heads) only where it can help: when the snapshot has more chunks
   * than we have connected peers to spread them over, or when no connected peer served one. A
   * slow DHT (seconds on a small swarm) then delays no small join (CI, e2e swarm joiner,
   * 2026-11-28: 3 s of a 5 s join, while the swarm ran 100 iterations ahead).
   */
  async downloadSnapshot(minIteration: number | null, maxIteration?: number): Promise<FoundSnapshot> {
    const { peers } = this.s;
    const parts = this.fetchParts((iteration, holders) =>
      minIteration === null ? Promise.resolve(this.ownReference(iteration)) : this.reference(iteration, holders),
    );
    if (minIteration === null) {
      const snap = await fetchVerifiedSnapshot(parts, peers.connected(), { iterations: this.repairCandidates() });
      return { ...snap, via: "connected peers" };
    }
    const plan = this.joinPlan ?? { lookup: this.s.planner.plan(minIteration).catch(() => null), startedAt: Date.now() };
    this.joinPlan = null;
    const planned = async (wait: boolean) => {
      const left = wait ? plan.startedAt + PLAN_TIMEOUT_MS - Date.now() : 0;
      const found = await Promise.race([plan.lookup, sleep(Math.max(0, left)).then(() => null)]);
      this.s.log.debug({ found: found !== null, waited: wait, ms: Date.now() - plan.startedAt }, "snapshot plan");
      return found;
    };
    const chunks = chunkLayout(this.s.weightCount, defaultSyncOptions.chunkBytes).total;
    const fetchWith = async (found: Awaited<typeof plan.lookup>): Promise<FoundSnapshot> => {
      // A planned holder is one more peer to ask, no more: records are anyone's to write, so they
      // never crowd connected peers out of the MAX_SNAPSHOT_HOLDERS asked.
      const connected = peers.connected();
      const half = MAX_SNAPSHOT_HOLDERS / 2;
      const holders = [...connected.slice(0, half), ...(found?.peers ?? []).slice(0, half), ...connected.slice(half)];
      // Never past the head peers back (peersHead): a far-ahead claim is not even asked about.
      const want = { minIteration, ...(maxIteration !== undefined ? { maxIteration } : {}), ...(found ? { plan: found.plan } : {}) };
      const snap = await fetchVerifiedSnapshot(parts, holders, want);
      return { ...snap, via: found ? "dht experts" : "connected peers" };
    };
    const waitFirst = chunks > peers.connected().length;
    const found = await planned(waitFirst);
    if (found || waitFirst) return fetchWith(found);
    try {
      return await fetchWith(null);
    } catch (err) {
      const late = await planned(true);
      if (!late) throw err;
      return fetchWith(late);
    }
  }

  /** What snapshot-fetch.ts needs, with `reference` as the verified commits that vouch. */
  private fetchParts(reference: SnapshotFetchParts["reference"]): SnapshotFetchParts {
    const { libp2p, runId, log } = this.s;
    return {
      node: libp2p,
      runId,
      log,
      opts: defaultSyncOptions,
      weightCount: this.s.weightCount,
      decode: this.s.decode,
      blame: (peer: string, reason: string) => this.s.blame?.(peer, reason, PENALTY.badSnapshot),
      reference,
    };
  }

  /**
   * A snapshot on a chain other than ours (a deep fork we lose, older than the snapshots we keep):
   * vouched for by `run`, a linked run of verified commits from the commit both chains share (see
   * Repair.linkedRun), asked from `holders` at the snapshot iterations the run covers, newest first.
   */
  async downloadOnRun(run: readonly ChainedCommit[], holders: readonly PeerId[]): Promise<FoundSnapshot> {
    const every = Math.max(1, this.opts.checkEvery);
    const byAfter = new Map(run.map((c) => [c.commit.iteration + 1, c]));
    const iterations = [...byAfter.keys()].filter((after) => after % every === 0).sort((a, b) => b - a).slice(0, REPAIR_CANDIDATES);
    if (iterations.length === 0) throw new Error("the winning chain's run covers no snapshot iteration yet");
    const parts = this.fetchParts(async (iteration) => {
      const c = byAfter.get(iteration);
      return c ? { checksum: toHex(c.commit.checksum), anchor: c } : null;
    });
    const snap = await fetchVerifiedSnapshot(parts, holders, { iterations });
    return { ...snap, via: "the winning fork's holders" };
  }

  /** Iterations of our chain that snapshots are taken at (multiples of checkEvery), newest first. */
  private repairCandidates(): number[] {
    const every = Math.max(1, this.opts.checkEvery);
    const out: number[] = [];
    const applied = this.s.rounds.appliedCommits();
    for (let k = applied.length - 1; k >= 0 && out.length < REPAIR_CANDIDATES; k--) {
      const after = applied[k].iteration + 1;
      if (after % every === 0 && after <= this.head) out.push(after);
    }
    if (out.length === 0) throw new Error("no commit of our chain to check a snapshot against");
    return out;
  }

  /** Our own verified commit producing the state after `iteration` iterations. */
  private ownReference(iteration: number): SnapshotReference | null {
    const own = this.s.rounds.appliedCommits().find((c) => c.iteration === iteration - 1);
    return own ? { checksum: toHex(own.commit.checksum), anchor: own } : null;
  }

  /**
   * The verified commit for `iteration` - 1: ours when our chain holds it, else the head of an
   * anchor run served by a connected peer (anchor-run.ts).
   */
  private async reference(iteration: number, holders: readonly PeerId[]): Promise<SnapshotReference | null> {
    return this.ownReference(iteration) ?? (await joinerReference(this.s, iteration, holders, null));
  }

  /**
   * Takes a verified snapshot as our state, with the verified commit that produced it as the
   * chain's anchor, so the next commit chains onto it and its rank is checked. `behind`: verified
   * commits the caller already holds that end at the anchor's parent (a fork switch holds our
   * chain to the fork and the winner's linked run after it); those linked to the anchor are kept
   * at once, and only what lies before them is read from peers.
   */
  async adoptSnapshot(snap: FoundSnapshot, message: string, reason: string, behind: readonly EncodedCommit[] = []): Promise<void> {
    this.s.rounds.jumpTo(snap.weights, snap.iteration, snap.checksum, snap.anchor);
    const { iteration, checksum, via, blamed, holders } = snap;
    // The peer: the first holder that served verified chunks (the others are counted).
    const ctx = { iteration, peer: holders[0] ?? null, reason, holders: holders.length, checksum, via, blamed: blamed.length };
    this.s.faults("snapshotAdopted", message, ctx);
    // The chain behind the snapshot, and whom it excluded, read beside the catch-up (it goes
    // before the anchor whenever it comes; a slow peer must not hold the node's rejoin).
    const { anchor } = snap;
    if (!anchor) return;
    // Whom the chain behind excluded is taken on only where more than one peer's word vouches for
    // it: an anchor of our own chain or the fork choice's winner (no vouchers counted), or one a
    // quorum of distinct peers served (anchor-run.ts). One Sybil-signed anchor would otherwise
    // make a joiner refuse every honest author (security review, finding 8).
    const bans = (commits: readonly EncodedCommit[]) => (snap.vouchers === undefined || snap.vouchers >= ANCHOR_QUORUM ? excludedBy(commits) : []);
    const held = linkedTo(anchor, behind, CHAIN_KEEP);
    if (held.length > 0) this.s.rounds.addChainBehind(held, bans(held));
    const oldest = held[0] ?? anchor;
    const room = CHAIN_KEEP - held.length;
    if (room <= 0 || oldest.commit.iteration === 0) {
      this.s.log.info({ iteration, commits: held.length, held: held.length, excluded: excludedBy(held), ms: 0 }, "chain behind the snapshot read");
      return;
    }
    const read = async () => {
      const started = Date.now();
      const fetched = await chainBehind(this.s.libp2p, this.s.runId, oldest, holdersFirst(this.s.peers.connected(), holders), room);
      const excluded = bans(fetched);
      this.s.rounds.addChainBehind(fetched, excluded);
      this.s.log.info({ iteration, commits: held.length + fetched.length, held: held.length, excluded, ms: Date.now() - started }, "chain behind the snapshot read");
    };
    detach(read(), this.s.log, "chain behind the snapshot");
  }

  /** The peers' head past ours and a peer at it (peers-head.ts). */
  peersHead(peers: PeerId[], timeoutMs = defaultSyncOptions.requestTimeoutMs): Promise<{ head: number; peer?: PeerId; answered: number }> {
    return askPeersHead(this.s.libp2p, this.s.runId, peers, this.head, timeoutMs);
  }

  /** Dials the authors of the last applied commit that we are not connected to. */
  async dialAuthors(): Promise<void> {
    const last = this.s.rounds.lastApplied();
    if (!last) return;
    await this.s.peers.dialAuthors(last.commit.entries.map((e) => e.author.id), this.s.self);
  }
}
