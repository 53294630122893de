/**
 * The daemon's composition root (Lodestar's habit): builds every subsystem in a fixed order —
 * identity -> backend -> run and replica -> libp2p -> gossip -> sync -> rounds — and closes them
 * in reverse. Everything with time and I/O in a swarm node is wired here.
 */
import "./polyfills.js";
import { randomInt } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readFileSync, type WriteStream } from "node:fs";
import { dirname, join } from "node:path";
import type { PeerId } from "@libp2p/interface";
import { peerIdFromMultihash, peerIdFromString } from "@libp2p/peer-id";
import * as Digest from "multiformats/hashes/digest";
import {
  type Commit,
  commitHash,
  decodeCommit,
  encodeCommit,
  encodeContribution,
  encodeHeartbeat,
  encodeLeave,
  toHex,
} from "../protocol/codec.js";
import type { RunSpec } from "../protocol/run-spec.js";
import { parseTopic, stringifyTopic, TOPIC_KINDS, type TopicKind } from "../protocol/topics.js";
import { GOSSIP_VALIDATORS, type GossipContext, toVerdict } from "../protocol/validation.js";
import { type BackendChoice, useBackend } from "../training/engine.js";
import type { Replica } from "../training/replica.js";
import type { Author } from "../training/rng/seeds.js";
import { initialReplica, openRun, type RunContext } from "../training/run-context.js";
import { checkpointPath, loadCheckpoint, saveCheckpoint } from "./checkpoint.js";
import { loadOrCreateIdentity } from "./identity.js";
import {
  createSwarmNode,
  defaultNetworkOptions,
  type NetworkOptions,
  runIdCid,
  type SwarmNode,
} from "./libp2p.js";
import type { Logger } from "./logger.js";
import { type CommitData, Rounds, type RoundsEvent, ZERO_HASH } from "./rounds.js";
import { fetchChecksum, fetchCommits, fetchSnapshot, serveSync } from "./sync.js";

export interface NodeOptions {
  readonly spec: RunSpec;
  readonly dataDir: string;
  readonly backend: BackendChoice;
  readonly network: NetworkOptions;
  /** Verify the checksum with a random peer every this many iterations. */
  readonly checkEvery: number;
  /** Stop (checkpoint, leave, exit) after this many applied iterations. */
  readonly stopAt: number;
  /** How long to look for peers before starting a chain alone. */
  readonly joinWaitMs: number;
  /** Wait (up to joinWaitMs) for this many peers before training: a swarm that starts together. */
  readonly minPeers: number;
  /** Time allowed from a stop signal to exit. */
  readonly leaveDeadlineMs: number;
  /** Checkpoint every this many iterations (0: only when stopping). */
  readonly checkpointEvery: number;
}

export const defaultNodeOptions = {
  backend: "auto",
  network: defaultNetworkOptions,
  // The brief's C: one random-peer comparison per 10 iterations costs one small request.
  checkEvery: 10,
  // Long enough for bootstrap dials and a first heartbeat; short enough for a lone first node.
  joinWaitMs: 3000,
  // Start with whoever is there: a run must not need a quorum to make progress.
  minPeers: 0,
  // Spot instances give 30 s to 2 min of notice; a checkpoint takes milliseconds.
  leaveDeadlineMs: 10_000,
  checkpointEvery: 100,
} as const satisfies Partial<NodeOptions>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Peer id string <-> the multihash bytes a commit entry carries. */
function authorBytes(id: string): Uint8Array {
  return peerIdFromString(id).toMultihash().bytes;
}
function authorId(bytes: Uint8Array): string {
  return peerIdFromMultihash(Digest.decode(bytes)).toString();
}

export interface NodeResult {
  readonly iteration: number;
  readonly checksum: string;
  readonly peerId: string;
}

/** A running swarm node. `stopped` resolves when it has left and closed. */
export class SwarmDaemon {
  private readonly log: Logger;
  private libp2p!: SwarmNode;
  private run!: RunContext;
  private replica!: Replica;
  private rounds!: Rounds;
  private self!: Author;
  private closeSync: () => Promise<void> = async () => {};
  private snapshot: { iteration: number; checksum: string; weights: Float32Array } | null = null;
  private readonly seen = new Map<string, string>();
  private repairing = false;
  private heartbeat?: NodeJS.Timeout;
  private commitLog?: WriteStream;
  private saving: Promise<void> = Promise.resolve();
  private faultInjected = false;
  private finishing = false;
  private stopping: Promise<NodeResult> | null = null;
  private resolveDone!: (r: NodeResult) => void;
  readonly stopped = new Promise<NodeResult>((r) => {
    this.resolveDone = r;
  });

  constructor(
    private readonly opts: NodeOptions,
    log: Logger,
  ) {
    this.log = log.child({ module: "node" });
  }

  get peerId(): string {
    return this.libp2p.peerId.toString();
  }

  get head(): number {
    return this.replica.iteration;
  }

  async start(): Promise<void> {
    const { opts, log } = this;
    const identity = await loadOrCreateIdentity(opts.dataDir);
    await useBackend(opts.backend, log);
    this.run = await openRun(opts.spec);
    const runId = this.run.runId;
    this.replica = initialReplica(this.run);
    let chain: { hash: Uint8Array; authors: string[] } = { hash: ZERO_HASH, authors: [] };
    let joinedAt = Date.now();
    const path = checkpointPath(opts.dataDir, runId);
    mkdirSync(dirname(path), { recursive: true });
    if (existsSync(path)) {
      const cp = await loadCheckpoint(path);
      this.replica.reset(cp.weights, cp.iteration);
      if (cp.chain) {
        chain = { hash: Buffer.from(cp.chain.hash, "hex"), authors: [...cp.chain.authors] };
        joinedAt = cp.chain.joinedAt;
      }
      log.info({ iteration: cp.iteration, checksum: cp.checksum }, "resumed from checkpoint");
    }
    this.self = { id: identity.peerId.toString(), joinedAt };
    const topics = Object.fromEntries(
      TOPIC_KINDS.map((kind) => [kind, stringifyTopic({ runId, kind })]),
    ) as Record<TopicKind, string>;
    this.libp2p = await createSwarmNode(
      { ...opts.network, scoredTopics: Object.values(topics) },
      identity.privateKey,
      log,
    );
    const pubsub = this.libp2p.services.pubsub;
    log.info(
      {
        peerId: this.self.id,
        run: runId,
        addrs: this.libp2p.getMultiaddrs().map(String),
        iteration: this.head,
      },
      "node started",
    );

    this.rounds = new Rounds(
      this.self,
      this.run,
      this.replica,
      {
        publishContribution: async (iteration, payload) => {
          await pubsub.publish(
            topics.contribution,
            encodeContribution({ runId, iteration, joinedAt, payload }),
          );
        },
        publishCommit: async (encoded) => {
          await pubsub.publish(topics.commit, encoded);
        },
        encodeCommit: (c) => encodeCommit(this.toWire(c)),
      },
      { roundTimeoutMs: opts.spec.roundTimeoutMs, stopAt: opts.stopAt, contribute: true },
      log.child({ module: "rounds" }),
      (e) => this.onRoundsEvent(e),
    );
    this.rounds.resumeChain(chain.hash, chain.authors);
    this.rounds.follow();

    pubsub.addEventListener("gossipsub:message", (evt) => {
      const { propagationSource, msgId, msg } = evt.detail;
      const topic = parseTopic(msg.topic);
      if (!topic || topic.runId !== runId || msg.type !== "signed") {
        pubsub.reportMessageValidationResult(
          msgId,
          propagationSource.toString(),
          "ignore" as never,
        );
        return;
      }
      const author = msg.from.toString();
      const res = toVerdict(() =>
        GOSSIP_VALIDATORS[topic.kind](msg.data, author, this.gossipContext()),
      );
      pubsub.reportMessageValidationResult(
        msgId,
        propagationSource.toString(),
        res.verdict as never,
      );
      if (res.verdict !== "accept") {
        log.debug(
          { kind: topic.kind, from: author, code: res.code, verdict: res.verdict },
          "gossip not accepted",
        );
        return;
      }
      this.onGossip(topic.kind, res.value as never, author);
    });
    for (const t of Object.values(topics)) pubsub.subscribe(t);

    this.closeSync = await serveSync(
      this.libp2p,
      {
        runId,
        snapshot: () => this.snapshot,
        commitsFrom: (from, max) =>
          this.rounds.log
            .filter((l) => l.commit.iteration >= from)
            .slice(0, max)
            .map((l) => l.encoded),
        checksumAt: (iteration) => {
          const it = iteration < 0 ? this.head : iteration;
          const sum = this.rounds.checksums.get(it);
          return sum ? { iteration: it, checksum: sum } : null;
        },
      },
      log,
    );
    this.restoreCommitLog();
    this.takeSnapshot(true);
    // Announce and look for the run in the DHT in the background; failures only cost discovery.
    const cid = runIdCid(runId);
    this.libp2p.contentRouting
      .provide(cid, { signal: AbortSignal.timeout(30_000) })
      .catch((err: Error) => log.debug({ err: err.message }, "dht provide failed"));
    void this.findProviders(cid);

    await this.joinOrStart();
    this.heartbeat = setInterval(
      () => {
        const sum = this.rounds.checksums.get(this.head);
        if (!sum) return;
        pubsub
          .publish(
            topics.heartbeat,
            encodeHeartbeat({
              runId,
              iteration: this.head,
              checksum: Buffer.from(sum, "hex"),
              joinedAt: this.self.joinedAt,
            }),
          )
          .catch(() => {});
      },
      Math.max(500, opts.spec.roundTimeoutMs),
    );
  }

  private async findProviders(cid: ReturnType<typeof runIdCid>): Promise<void> {
    try {
      for await (const p of this.libp2p.contentRouting.findProviders(cid, {
        signal: AbortSignal.timeout(30_000),
      })) {
        if (p.id.equals(this.libp2p.peerId) || this.libp2p.getConnections(p.id).length > 0)
          continue;
        await this.libp2p.dial(p.id, { signal: AbortSignal.timeout(10_000) }).catch(() => {});
      }
    } catch (err) {
      this.log.debug({ err: (err as Error).message }, "dht findProviders ended");
    }
  }

  private gossipContext(): GossipContext {
    return {
      runId: this.run.runId,
      head: Math.max(0, this.head - 1),
      window: 1024,
      payloadSize: this.run.algorithm.payloadSize,
      payloadProblem: (payload) => this.run.algorithm.payloadProblem(payload),
      seen: (kind, author, iteration, data) => {
        const key = `${kind}/${author}/${iteration}`;
        const prev = this.seen.get(key);
        const h = toHex(data);
        if (prev === undefined) {
          this.seen.set(key, h);
          if (this.seen.size > 100_000) this.seen.delete(this.seen.keys().next().value as string);
          return "new";
        }
        return prev === h ? "same" : "different";
      },
    };
  }

  private toWire(c: CommitData): Commit {
    return {
      runId: this.run.runId,
      iteration: c.iteration,
      prevHash: c.prevHash,
      checksum: c.checksum,
      rank: c.rank,
      entries: c.entries.map((e) => ({
        author: authorBytes(e.author.id),
        joinedAt: e.author.joinedAt,
        payload: e.payload,
      })),
    };
  }

  private fromWire(c: Commit): CommitData {
    return {
      iteration: c.iteration,
      prevHash: c.prevHash,
      checksum: c.checksum,
      rank: c.rank,
      entries: c.entries.map((e) => ({
        author: { id: authorId(e.author), joinedAt: e.joinedAt },
        payload: e.payload,
      })),
    };
  }

  private onGossip(kind: TopicKind, m: never, author: string): void {
    switch (kind) {
      case "contribution": {
        const c = m as { iteration: number; joinedAt: number; payload: Uint8Array };
        this.rounds.onContribution(
          { author: { id: author, joinedAt: c.joinedAt }, payload: c.payload },
          c.iteration,
        );
        return;
      }
      case "commit":
        this.rounds.onCommit(this.fromWire(m as Commit));
        return;
      case "leave":
        this.log.info({ peer: author }, "peer left");
        return;
      case "heartbeat": {
        const h = m as { iteration: number };
        // A peer two or more iterations ahead: we missed commits; fetch them.
        if (h.iteration > this.head + 1 && !this.repairing && this.rounds.isActive)
          void this.catchUp("behind a peer's heartbeat");
        return;
      }
    }
  }

  private onRoundsEvent(e: RoundsEvent): void {
    switch (e.kind) {
      case "applied": {
        this.log.info(
          {
            iteration: e.iteration,
            checksum: e.checksum,
            contributions: e.contributions,
            rank: e.rank,
            ms: Math.round(e.ms),
            loss: Math.round(this.run.algorithm.lastLoss * 10000) / 10000,
          },
          "applied",
        );
        this.takeSnapshot();
        this.appendCommitLog();
        const t = e.iteration;
        if (
          this.opts.checkpointEvery > 0 &&
          t % this.opts.checkpointEvery === 0 &&
          this.rounds.isActive
        )
          void this.checkpoint();
        if (t % this.opts.checkEvery === 0 && this.rounds.isActive) {
          if (this.connectedPeers().length < 3) void this.connectToMembers();
          void this.verifyWithPeers(t, "periodic");
        }
        this.maybeInjectFault(t);
        return;
      }
      case "diverged":
        this.log.warn({ iteration: e.iteration, reason: e.reason }, "divergence suspected");
        if (e.unchained) {
          void this.resolveFork(e.unchained);
          return;
        }
        // Compare where we stand now; peers at or past our head know their checksum there.
        void this.verifyWithPeers(this.head, e.reason);
        return;
      case "done":
        void this.finish();
        return;
    }
  }

  /**
   * At the end of the run: wait briefly for slower peers, make sure we agree with them (repairing
   * if a majority says otherwise), keep answering their final checks for a moment, then leave.
   */
  private async finish(): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    this.log.info({ iteration: this.head, checksum: this.replica.checksum() }, "run length reached");
    const pause = Math.min(1000, this.opts.spec.roundTimeoutMs);
    await sleep(pause);
    await this.verifyWithPeers(this.head, "final").catch(() => {});
    await sleep(pause);
    await this.stop("done");
  }

  /**
   * Appends the last applied commit to `<run dir>/commits.jsonl`: the record of which
   * contributions made each iteration, enough to replay the run in one process.
   */
  private appendCommitLog(): void {
    const last = this.rounds.log[this.rounds.log.length - 1];
    if (!last) return;
    const c = last.commit;
    const line = JSON.stringify({
      iteration: c.iteration,
      hash: toHex(last.hash),
      prevHash: toHex(c.prevHash),
      checksum: toHex(c.checksum),
      rank: c.rank,
      entries: c.entries.map((e) => ({
        author: e.author.id,
        joinedAt: e.author.joinedAt,
        payload: toHex(e.payload),
      })),
    });
    this.commitLog ??= createWriteStream(
      join(dirname(checkpointPath(this.opts.dataDir, this.run.runId)), "commits.jsonl"),
      { flags: "a" },
    );
    this.commitLog.write(`${line}\n`);
  }

  /**
   * After a restart: reloads the commit log from commits.jsonl (up to our head) so this node can
   * serve the commits others need, e.g. when a whole swarm restarts from checkpoints taken at
   * slightly different iterations.
   */
  private restoreCommitLog(): void {
    const path = join(dirname(checkpointPath(this.opts.dataDir, this.run.runId)), "commits.jsonl");
    if (!existsSync(path)) return;
    const byIteration = new Map<number, CommitData>();
    for (const text of readFileSync(path, "utf8").split("\n")) {
      if (!text) continue;
      try {
        const l = JSON.parse(text) as {
          iteration: number;
          prevHash?: string;
          checksum: string;
          rank: number;
          entries: { author: string; joinedAt: number; payload: string }[];
        };
        if (l.iteration >= this.head || l.prevHash === undefined) continue;
        byIteration.set(l.iteration, {
          iteration: l.iteration,
          prevHash: Buffer.from(l.prevHash, "hex"),
          checksum: Buffer.from(l.checksum, "hex"),
          rank: l.rank,
          entries: l.entries.map((e) => ({ author: { id: e.author, joinedAt: e.joinedAt }, payload: Buffer.from(e.payload, "hex") })),
        });
      } catch {
        // A torn last line after a crash: skip it.
      }
    }
    const commits = [...byIteration.values()].sort((a, b) => a.iteration - b.iteration).slice(-4096);
    for (const commit of commits) {
      const encoded = encodeCommit(this.toWire(commit));
      this.rounds.log.push({ commit, hash: commitHash(encoded), encoded });
    }
    if (commits.length > 0) this.log.info({ commits: commits.length, from: commits[0].iteration }, "commit log restored");
  }

  /**
   * Snapshots at multiples of checkEvery, so every honest peer serves the same bytes; at start,
   * also the state we hold, so a restarted node can serve it.
   */
  private takeSnapshot(force = false): void {
    const t = this.head;
    if ((!force && t % this.opts.checkEvery !== 0) || this.snapshot?.iteration === t) return;
    const sum = this.rounds.checksums.get(t) ?? this.replica.checksum();
    this.snapshot = { iteration: t, checksum: sum, weights: this.replica.weights.slice() };
  }

  /** Test hook: SEEDSWARM_FAULT=corrupt@N flips one weight bit after iteration N. */
  private maybeInjectFault(t: number): void {
    const fault = /^corrupt@(\d+)$/.exec(process.env.SEEDSWARM_FAULT ?? "");
    if (!fault || Number(fault[1]) !== t || this.faultInjected) return;
    this.faultInjected = true;
    const bits = new Uint32Array(
      this.replica.weights.buffer,
      this.replica.weights.byteOffset,
      this.replica.weights.length,
    );
    bits[7] ^= 1 << 20;
    this.replica.reset(this.replica.weights, this.replica.iteration);
    this.log.warn({ iteration: t }, "fault injected: one weight bit flipped");
  }

  private connectedPeers(): PeerId[] {
    const subs = new Set(
      this.libp2p.services.pubsub
        .getSubscribers(stringifyTopic({ runId: this.run.runId, kind: "commit" }))
        .map(String),
    );
    return this.libp2p.getPeers().filter((p) => subs.has(p.toString()));
  }

  /**
   * Compares our checksum after `iteration` with peers'. When peers disagree with us and agree
   * among themselves (more than one of them where there are several), we repair from them.
   */
  private async verifyWithPeers(iteration: number, reason: string): Promise<void> {
    if (this.repairing) return;
    if (reason !== "periodic" && this.connectedPeers().length < 3) await this.connectToMembers();
    const peers = this.connectedPeers();
    if (peers.length === 0) return;
    const mine = this.rounds.checksums.get(iteration);
// A random sample (Fisher-Yates with the CSPRNG: which peer we ask is not replicated state).
    for (let i = peers.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [peers[i], peers[j]] = [peers[j], peers[i]];
    }
    const pick = peers.slice(0, reason === "periodic" ? 1 : 3);
    const answers = await Promise.allSettled(
      pick.map((p) => fetchChecksum(this.libp2p, p, this.run.runId, iteration)),
    );
    const sums = answers.flatMap((a) =>
      a.status === "fulfilled" && a.value.known ? [toHex(a.value.checksum)] : [],
    );
    if (sums.length === 0) return;
    const disagree = sums.filter((s) => s !== mine);
    if (disagree.length === 0) {
      this.log.debug({ iteration, peers: sums.length }, "checksum verified");
      return;
    }
    if (reason === "periodic" && peers.length > 1) {
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
      this.log.warn(
        { iteration, mine, theirs: disagree[0], peers: sums.length },
        "diverged from peers; repairing",
      );
      await this.repair();
    } else {
      this.log.warn(
        { iteration, mine, peers: sums.length, agreeWithMe },
        "checksum disagreement without a majority against us; keeping our state",
      );
    }
  }

  /** Replaces our state with the snapshot peers agree on, then replays their commits. */
  private async repair(): Promise<void> {
    if (this.repairing) return;
    this.repairing = true;
    this.rounds.follow();
    try {
      const snap = await fetchSnapshot(
        this.libp2p,
        this.connectedPeers(),
        this.run.runId,
        this.log,
      );
      this.replica.reset(snap.weights, snap.iteration);
      this.rounds.checksums.set(snap.iteration, snap.checksum);
      this.log.info(
        {
          iteration: snap.iteration,
          checksum: snap.checksum,
          agreeing: snap.agreeing,
          sources: snap.sources,
        },
        "state repaired from snapshot",
      );
      await this.replayCommits(
        Math.max(snap.iteration + 1, (await this.peersHead(this.connectedPeers())).head),
      );
      this.log.info({ iteration: this.head, checksum: this.replica.checksum() }, "repaired");
    } catch (err) {
      this.log.error(
        { err: (err as Error).message },
        "repair failed; will retry at the next check",
      );
    } finally {
      this.repairing = false;
      this.rounds.start();
    }
  }

  /**
   * Fetches and applies commits from peers until our head reaches `target` (the peers' head when
   * we started): chasing a moving head would never end on a fast swarm, and gossip delivers what
   * comes after.
   */
  private async replayCommits(target: number): Promise<void> {
    let first = true;
    while (this.head < target) {
      const peers = this.connectedPeers();
      if (peers.length === 0) return;
      let got: Uint8Array[] = [];
      for (const p of peers) {
        got = await fetchCommits(this.libp2p, p, this.run.runId, this.head).catch(() => []);
        if (got.length > 0) break;
      }
      if (got.length === 0) return;
      const before = this.head;
      for (const bytes of got) {
        const c = this.fromWire(decodeCommit(bytes));
        if (c.iteration !== this.head) continue;
        if (first) {
          // The snapshot (or checkpoint) sits exactly before this commit.
          this.rounds.resumeChain(c.prevHash, []);
          first = false;
        }
        this.rounds.onCommit(c);
      }
      // Nothing applied (the commits do not chain onto our head): stop; gossip or repair goes on.
      if (this.head === before) return;
    }
  }

  /** At start: catch up with peers if there are any, then contribute. */
  private async joinOrStart(): Promise<void> {
    const deadline = Date.now() + this.opts.joinWaitMs;
    const enough = () => this.connectedPeers().length >= Math.max(1, this.opts.minPeers);
    while (Date.now() < deadline && !enough()) await sleep(100);
    if (this.connectedPeers().length > 0) {
      await this.catchUp("joining");
      // Peers, but no chain yet: leave starting it to the node that waits for its quorum
      // (--min-peers), or to whoever's join wait ends first, instead of racing ahead alone.
      if (this.opts.minPeers === 0 && this.head === 0 && this.rounds.log.length === 0) {
        const until = Date.now() + this.opts.joinWaitMs;
        while (Date.now() < until && this.head === 0) await sleep(50);
      }
    } else {
      this.log.info({ iteration: this.head }, "no peers found; starting the chain");
    }
    this.rounds.start();
  }

  /**
   * A commit that does not chain onto ours: usually a one-step fork whose other commit gossip
   * lost. Fetch the peers' commit for the previous iteration over the commits protocol and let the
   * fork choice decide; if we switch, the new commit chains and applies. Otherwise compare
   * checksums with peers (and repair on a majority).
   */
  private async resolveFork(commit: CommitData): Promise<void> {
    for (const peer of this.connectedPeers()) {
      const got = await fetchCommits(this.libp2p, peer, this.run.runId, commit.iteration - 1).catch(() => []);
      const prev = got.map((b) => this.fromWire(decodeCommit(b))).find((c) => c.iteration === commit.iteration - 1);
      if (!prev) continue;
      this.rounds.onCommit(prev);
      if (this.head === commit.iteration) this.rounds.onCommit(commit);
      if (this.head > commit.iteration) {
        this.log.info({ iteration: commit.iteration }, "fork resolved");
        return;
      }
    }
    await this.verifyWithPeers(this.head, "unresolved fork");
  }

  /**
   * Dials the run's members (the authors of the last commit) that we are not connected to,
   * finding their addresses through the DHT: more direct peers mean more independent opinions
   * when checksums disagree, and a fuller gossip mesh.
   */
  private async connectToMembers(): Promise<void> {
    const last = this.rounds.log[this.rounds.log.length - 1];
    if (!last) return;
    const missing = last.commit.entries
      .map((e) => e.author.id)
      .filter((id) => id !== this.self.id)
      .map((id) => peerIdFromString(id))
      .filter((p) => this.libp2p.getConnections(p).length === 0)
      .slice(0, 8);
    await Promise.allSettled(
      missing.map(async (p) => {
        const signal = AbortSignal.timeout(3000);
        const info = await this.libp2p.peerRouting.findPeer(p, { signal });
        await this.libp2p.dial(info.id, { signal });
        this.log.debug({ peer: p.toString() }, "connected to a run member");
      }),
    );
  }

  /** The highest head among peers (-1 when none answers) and a peer at it. */
  private async peersHead(peers: PeerId[]): Promise<{ head: number; peer?: PeerId }> {
    const heads = await Promise.allSettled(peers.map((p) => fetchChecksum(this.libp2p, p, this.run.runId)));
    let best: { head: number; peer?: PeerId } = { head: -1 };
    heads.forEach((h, i) => {
      if (h.status === "fulfilled" && h.value.known && h.value.iteration > best.head) {
        best = { head: h.value.iteration, peer: peers[i] };
      }
    });
    return best;
  }

  private async catchUp(reason: string): Promise<void> {
    if (this.repairing) return;
    const peers = this.connectedPeers();
    const { head: best, peer: ahead } = await this.peersHead(peers);
    if (best <= this.head) return;
    this.log.info({ reason, head: this.head, peersHead: best }, "catching up");
    // A node that was training goes back to training afterwards; at start-up, joinOrStart does.
    const wasActive = this.rounds.isActive;
    this.repairing = true;
    this.rounds.follow();
    try {
      // Far behind (more than two snapshot periods): download the snapshot, then replay the few
      // commits after it. Close by, or when peers hold no snapshot ahead of us: replay commits.
      const farBehind = best - this.head > 2 * this.opts.checkEvery;
      const probe = farBehind
        ? []
        : await fetchCommits(this.libp2p, ahead ?? peers[0], this.run.runId, this.head).catch(() => []);
      if (probe.length === 0 || decodeCommit(probe[0]).iteration !== this.head) {
        const snap = await fetchSnapshot(this.libp2p, peers, this.run.runId, this.log);
        if (snap.iteration > this.head) {
          this.replica.reset(snap.weights, snap.iteration);
          this.rounds.checksums.set(snap.iteration, snap.checksum);
          this.log.info(
            { iteration: snap.iteration, agreeing: snap.agreeing, sources: snap.sources },
            "snapshot downloaded",
          );
        }
      }
      await this.replayCommits(best);
      this.log.info({ iteration: this.head, checksum: this.replica.checksum() }, "caught up");
      void this.connectToMembers();
    } catch (err) {
      this.log.error(
        { err: (err as Error).message },
        "catch-up failed; starting from our own state",
      );
    } finally {
      this.repairing = false;
      if (wasActive) this.rounds.start();
    }
  }

  /** Writes a checkpoint of the current state; saves are serialized, never interleaved. */
  checkpoint(): Promise<void> {
    const head = this.head;
    const weights = this.replica.weights.slice();
    const last = this.rounds.log[this.rounds.log.length - 1];
    const chain = {
      hash: toHex(last?.hash ?? this.rounds.headHash),
      authors: last ? last.commit.entries.map((e) => e.author.id) : [],
      joinedAt: this.self.joinedAt,
    };
    this.saving = this.saving
      .catch(() => {})
      .then(() =>
        saveCheckpoint(
          checkpointPath(this.opts.dataDir, this.run.runId),
          this.opts.spec,
          head,
          weights,
          chain,
        ),
      )
      .then(() => {});
    return this.saving;
  }

  /** Leaves: stop contributing, announce, checkpoint, stop libp2p. Idempotent. */
  stop(reason: string): Promise<NodeResult> {
    if (this.stopping) return this.stopping;
    this.stopping = (async () => {
      this.log.info({ reason, iteration: this.head }, "leaving");
      this.rounds?.stop();
      if (this.heartbeat) clearInterval(this.heartbeat);
      const result = {
        iteration: this.head,
        checksum: this.replica.checksum(),
        peerId: this.self.id,
      };
      await this.libp2p.services.pubsub
        .publish(
          stringifyTopic({ runId: this.run.runId, kind: "leave" }),
          encodeLeave({ runId: this.run.runId, iteration: this.head }),
        )
        .catch(() => {});
      await this.checkpoint();
      this.log.info(
        { iteration: result.iteration, checksum: result.checksum },
        "checkpoint written",
      );
      await this.closeSync().catch(() => {});
      await new Promise<void>((r) => (this.commitLog ? this.commitLog.end(r) : r()));
      await this.libp2p.stop();
      this.replica.dispose();
      this.log.info({ iteration: result.iteration }, "stopped");
      this.resolveDone(result);
      return result;
    })();
    return this.stopping;
  }
}
