/**
 * The daemon's composition root (Lodestar's habit): builds every subsystem in a fixed order —
 * identity -> backend -> run and replica -> libp2p -> gossip -> sync -> rounds — and closes them
 * in reverse. Everything with time and I/O in a swarm node is wired here.
 */
import "./polyfills.js";
import { randomInt } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { PeerId } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr } from "@multiformats/multiaddr";
import {
  type Commit,
  commitHash,
  decodeCommit,
  encodeContribution,
  encodeHeartbeat,
  encodeLeave,
  toHex,
} from "../protocol/codec.js";
import { SeedswarmError } from "../protocol/errors.js";
import { canonicalJson, type RunSpec, runIdOf } from "../protocol/run-spec.js";
import { parseTopic, stringifyTopic, TOPIC_KINDS, type TopicKind } from "../protocol/topics.js";
import { GOSSIP_VALIDATORS, type GossipContext, toVerdict } from "../protocol/validation.js";
import { useBackend } from "../training/engine.js";
import type { Replica } from "../training/replica.js";
import type { Author } from "../training/rng/seeds.js";
import { initialReplica, openRun, type RunContext } from "../training/run-context.js";
import { stateFromBytes } from "../training/state-bytes.js";
import { checkpointPath, loadCheckpoint, saveCheckpoint } from "./checkpoint.js";
import { loadOrCreateIdentity } from "./identity.js";
import { createSwarmNode, runIdCid, type SwarmNode } from "./libp2p.js";
import type { Logger } from "./logger.js";
import type { NodeOptions } from "./node-options.js";
import { CommitLogFile } from "./commit-log.js";
import { faultHooks, flipOneBit } from "./fault-hooks.js";
import { commitFromWire, decodeCommitData, encodeCommitData } from "./commit-wire.js";
import { type CommitData, equalBytes, isBetter, Rounds, type RoundsEvent, ZERO_HASH } from "./rounds.js";
import { SnapshotStore } from "./snapshot-store.js";
import { type HttpServer, startHttpServer } from "./http-server.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { defaultRunMonitorOptions, type NodeState, RunMonitor, stallMsFor } from "./run-monitor.js";
import { activeBackend } from "../training/engine.js";
import { defaultExpertOptions, ExpertDirectory } from "./experts.js";
import {
  defaultSyncOptions,
  fetchChecksum,
  fetchCommits,
  fetchRunSpec,
  fetchSnapshot,
  type SnapshotPlan,
  serveSync,
} from "./sync.js";

export { defaultNodeOptions, type NodeOptions } from "./node-options.js";

export class NodeError extends SeedswarmError<"NODE_BAD_OPTIONS" | "NODE_NO_SPEC"> {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long a joiner looks for a snapshot plan in the DHT before asking its peers. */
const PLAN_TIMEOUT_MS = 3000;

/** The expert grid of state shards: `snap.<iteration>.<chunk>`. */
const SNAPSHOT_GRID = "snap";


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
  private spec!: RunSpec;
  private replica!: Replica;
  private rounds!: Rounds;
  private self!: Author;
  private closeSync: () => Promise<void> = async () => {};
  private readonly snapshots = new SnapshotStore();
  private resolvingFork = false;
  /** When a heartbeat last triggered a checksum check (at most one a second). */
  private heartbeatCheckAt = 0;
  /** A joiner's DHT snapshot lookup, started while it still hears its peers' heads. */
  private joinPlan: ReturnType<SwarmDaemon["snapshotPlan"]> | null = null;
  private experts!: ExpertDirectory;
  private expertTimer?: NodeJS.Timeout;
  private readonly seen = new Map<string, string>();
  private repairing = false;
  /** False after adopting a snapshot whose producing commit is unknown (see adoptSnapshot). */
  private chainKnown = true;
  private heartbeat?: NodeJS.Timeout;
  private commitLog?: CommitLogFile;
  private saving: Promise<void> = Promise.resolve();
  private readonly faults = faultHooks();
  private finishing = false;
  private stopping: Promise<NodeResult> | null = null;
  // Observability: always measured (the metrics log needs libp2p's byte counts), served on --http.
  private readonly metrics: Metrics | null = createMetrics();
  private monitor?: RunMonitor;
  private http?: HttpServer;
  private joined = false;
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
    const runId = opts.spec ? runIdOf(opts.spec) : opts.runId;
    if (!runId || (opts.spec && opts.runId && opts.runId !== runId))
      throw new NodeError("NODE_BAD_OPTIONS", "give a run spec or the runId of a run to join, not both", {
        runId: opts.runId,
      });
    const identity = await loadOrCreateIdentity(opts.dataDir);
    // The run is opened before libp2p starts when its spec is known, so peers that connect find
    // this node ready to answer; a node joining by id must connect first to fetch the spec.
    const open = async (spec: RunSpec) => {
      this.spec = spec;
      await useBackend(opts.backend, log);
      this.run = await openRun(spec);
    };
    if (opts.spec) await open(opts.spec);
    const topics = Object.fromEntries(
      TOPIC_KINDS.map((kind) => [kind, stringifyTopic({ runId, kind })]),
    ) as Record<TopicKind, string>;
    this.libp2p = await createSwarmNode(
      { ...opts.network, scoredTopics: Object.values(topics) },
      identity.privateKey,
      log,
      this.metrics?.libp2p,
    );
    const cid = runIdCid(runId);
    void this.findProviders(cid);
    if (!opts.spec) await open(await this.specOfRun(runId));
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
    const pubsub = this.libp2p.services.pubsub;
    log.info(
      {
        peerId: this.self.id,
        runId,
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
          this.metrics?.commitsProposed.inc();
          await pubsub.publish(topics.commit, encoded);
        },
        encodeCommit: (c) => encodeCommitData(runId, c),
      },
      {
        roundTimeoutMs: this.spec.roundTimeoutMs,
        stopAt: Math.min(opts.stopAt, this.spec.iterations),
        contribute: true,
      },
      log.child({ module: "rounds" }),
      (e) => this.onRoundsEvent(e),
    );
    this.rounds.resumeChain(chain.hash, chain.authors);
    this.rounds.follow();
    await this.startObservability();

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
      if (this.faults.partitioned(this.head)) {
        // Test hook (SEEDSWARM_FAULT=partition@N-M): this node hears no gossip for a while.
        pubsub.reportMessageValidationResult(msgId, propagationSource.toString(), "ignore" as never);
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
        // An old contribution is not forwarded, but its signed author is behind us and still
        // contributing: the rounds wait for it, so it gets included instead of chasing us.
        if (topic.kind === "contribution" && res.code === "OLD_ITERATION" && res.error instanceof SeedswarmError)
          this.rounds.noteLate(author, Number(res.error.context.iteration));
        log.debug(
          { kind: topic.kind, from: author, code: res.code, verdict: res.verdict, reason: res.error.message },
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
        specJson: canonicalJson(this.spec),
        snapshot: (iteration) => this.snapshots.find(iteration),
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
    // State shards as Learning@home experts: joiners find who serves which chunk of which snapshot.
    this.experts = new ExpertDirectory(this.libp2p, runId, log);
    void this.announceSnapshot();
    this.expertTimer = setInterval(
      () => void this.announceSnapshot(),
      defaultExpertOptions.announceEveryMs,
    );
    // Announce the run in the DHT in the background (providers were looked for at start);
    // failures only cost discovery.
    this.libp2p.contentRouting
      .provide(cid, { signal: AbortSignal.timeout(30_000) })
      .catch((err: Error) => log.debug({ err: err.message }, "dht provide failed"));

    await this.joinOrStart();
    this.joined = true;
    this.monitor?.joined();
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
      Math.max(500, this.spec.roundTimeoutMs),
    );
  }

  /**
   * The spec of a run joined by id: from our checkpoint of it if we have one, else from the first
   * peer that serves it (checked to hash to the runId), waiting up to joinWaitMs for peers.
   */
  private async specOfRun(runId: string): Promise<RunSpec> {
    const path = checkpointPath(this.opts.dataDir, runId);
    if (existsSync(path)) {
      const cp = await loadCheckpoint(path);
      if (runIdOf(cp.spec) === runId) return cp.spec;
    }
    const waitMs = Math.max(this.opts.joinWaitMs, 1000);
    const deadline = Date.now() + waitMs;
    const asked = new Set<string>();
    for (;;) {
      for (const peer of this.libp2p.getPeers()) {
        if (asked.has(peer.toString())) continue;
        asked.add(peer.toString());
        try {
          const spec = await fetchRunSpec(this.libp2p, peer, runId);
          this.log.info({ run: runId, peer: peer.toString(), name: spec.name }, "run spec fetched");
          return spec;
        } catch (err) {
          this.log.debug({ peer: peer.toString(), err: (err as Error).message }, "no run spec from peer");
        }
      }
      if (Date.now() > deadline) break;
      await sleep(200);
    }
    throw new NodeError(
      "NODE_NO_SPEC",
      `no peer served the run spec of run ${runId} within ${waitMs} ms (asked ${asked.size}); check --bootstrap, or give --spec/--preset`,
      { runId, asked: asked.size },
    );
  }

  /** The metrics log, accuracy evaluations and (with opts.http) the HTTP endpoint. */
  private async startObservability(): Promise<void> {
    const view = {
      peerId: this.self.id,
      state: () => this.state(),
      peers: () => this.connectedPeers().length,
      checksum: () => this.rounds.checksums.get(this.head) ?? this.replica.checksum(),
      backend: () => activeBackend() ?? this.opts.backend,
    };
    const monitorOpts = { ...defaultRunMonitorOptions, evalEvery: this.opts.evalEvery, stallMs: stallMsFor(this.run.spec.roundTimeoutMs) };
    this.monitor = new RunMonitor(this.run, this.replica, view, this.metrics, this.opts.dataDir, monitorOpts, this.log);
    if (this.opts.http) this.http = await startHttpServer(this.opts.http, this.monitor, this.metrics, this.log);
  }

  /** What the node is doing, for /status and /healthz. */
  state(): NodeState {
    if (this.stopping || this.finishing) return "leaving";
    if (!this.joined) return "joining";
    return this.rounds.isActive ? "training" : "following";
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
      maxPayloadBytes: this.run.algorithm.maxPayloadBytes,
      payloadProblem: (payload, iteration) => this.run.algorithm.payloadProblem(payload, iteration),
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
        this.rounds.onCommit(commitFromWire(m as Commit));
        return;
      case "leave":
        this.log.info({ peer: author }, "peer left");
        return;
      case "heartbeat": {
        const h = m as { iteration: number; checksum: Uint8Array };
        this.rounds.notePeerHead(h.iteration);
        // Same iteration, other weights: a fork or a fault; find out now, not at the next check.
        const mine = this.rounds.checksums.get(h.iteration);
        const now = Date.now();
        if (mine !== undefined && mine !== toHex(h.checksum) && !this.repairing && !this.resolvingFork && now - this.heartbeatCheckAt > 1000) {
          this.heartbeatCheckAt = now;
          void this.verifyWithPeers(h.iteration, "a peer's heartbeat checksum differs");
        }
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
        this.monitor?.onApplied(e.ms);
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
        this.metrics?.checksumMismatches.inc();
        this.log.warn({ iteration: e.iteration, reason: e.reason }, "divergence suspected");
        if (e.unchained) {
          void this.resolveFork(e.unchained);
          return;
        }
        // Compare where we stand now; peers at or past our head know their checksum there.
        void this.verifyWithPeers(this.head, e.reason);
        return;
      case "behind":
        if (!this.repairing) void this.catchUp("a peer is past our head");
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
    const pause = Math.min(1000, this.spec.roundTimeoutMs);
    await sleep(pause);
    await this.verifyWithPeers(this.head, "final").catch(() => {});
    await sleep(pause);
    await this.stop("done");
  }

  /** Appends the last applied commit to the run's commit log file. */
  private appendCommitLog(): void {
    const last = this.rounds.log[this.rounds.log.length - 1];
    if (last) this.commitLogFile().append(last.commit, last.hash);
  }

  private commitLogFile(): CommitLogFile {
    this.commitLog ??= new CommitLogFile(
      join(dirname(checkpointPath(this.opts.dataDir, this.run.runId)), "commits.jsonl"),
    );
    return this.commitLog;
  }

  /**
   * After a restart: reloads the commit log (up to our head) so this node can serve the commits
   * others need, e.g. when a whole swarm restarts from checkpoints taken at slightly different
   * iterations.
   */
  private restoreCommitLog(): void {
    const commits = this.commitLogFile().read(this.head);
    for (const commit of commits) {
      const encoded = encodeCommitData(this.run.runId, commit);
      this.rounds.log.push({ commit, hash: commitHash(encoded), encoded });
    }
    if (commits.length > 0) this.log.info({ commits: commits.length, from: commits[0].iteration }, "commit log restored");
  }

  /** Chunks of a snapshot of this run's state: every snapshot has the same count. */
  private snapshotChunks(): number {
    return Math.max(1, Math.ceil((this.replica.weights.length * 4) / defaultSyncOptions.chunkBytes));
  }

  /**
   * Pins the latest snapshot (kept, with the one pinned before, until the next announcement) and
   * declares its chunks as experts `snap.<iteration>.<chunk>` in the DHT.
   */
  private async announceSnapshot(): Promise<void> {
    if (this.stopping) return;
    const snap = this.snapshots.pinLatest();
    if (!snap) return;
    const uids = Array.from(
      { length: this.snapshotChunks() },
      (_, c) => `${SNAPSHOT_GRID}.${snap.iteration}.${c}`,
    );
    await this.experts.serve(uids);
  }

  /**
   * Beam search over the snapshot grid: the newest announced snapshots first, then their chunks;
   * the newest snapshot whose every chunk has a holder besides us wins. Null when the records
   * name none (then the caller asks its connected peers for their latest snapshot).
   */
  private async snapshotPlan(
    minIteration: number,
  ): Promise<{ plan: SnapshotPlan; peers: PeerId[] } | null> {
    const chunks = this.snapshotChunks();
    const found = await this.experts.beamSearch(SNAPSHOT_GRID, [2, 2 * chunks], (c) => c[0]);
    const byIteration = new Map<number, PeerId[][]>();
    for (const f of found) {
      const [iteration, chunk] = f.coords;
      if (iteration < minIteration || chunk >= chunks) continue;
      const holders = f.holders.map((h) => h.peer).filter((p) => !p.equals(this.libp2p.peerId));
      const table = byIteration.get(iteration) ?? Array.from({ length: chunks }, () => []);
      table[chunk] = holders;
      byIteration.set(iteration, table);
    }
    const [best] = [...byIteration]
      .filter(([, table]) => table.every((h) => h.length > 0))
      .sort((a, b) => b[0] - a[0]);
    if (!best) return null;
    const [iteration, table] = best;
    const unique = new Map(table.flat().map((p) => [p.toString(), p]));
    // Holders we are not connected to are dialled (their addresses come from the DHT).
    const peers = (
      await Promise.all(
        [...unique.values()].map(async (p) => {
          try {
            if (this.libp2p.getConnections(p).length === 0)
              await this.libp2p.dial(p, { signal: AbortSignal.timeout(5000) });
            return [p];
          } catch {
            return [];
          }
        }),
      )
    ).flat();
    if (peers.length === 0) return null;
    this.log.info({ iteration, chunks, holders: peers.length }, "snapshot found in the DHT");
    return { plan: { iteration, holders: (i) => table[i] ?? [] }, peers };
  }

  /**
   * The snapshot peers agree on: for a joiner, the one the DHT's expert records plan when there
   * is one (tried first); else the latest from connected peers.
   */
  private async downloadSnapshot(
    minIteration: number | null,
  ): Promise<Awaited<ReturnType<typeof fetchSnapshot>> & { via: string }> {
    // A joiner (minIteration set) looks in the DHT, for at most PLAN_TIMEOUT_MS; a repairing node
    // already knows peers that agree with each other and asks them directly.
    const lookup = minIteration === null ? null : (this.joinPlan ?? this.snapshotPlan(minIteration));
    const decode = (bytes: Uint8Array) => stateFromBytes(this.run.spec.model, bytes);
    this.joinPlan = null;
    const found =
      lookup === null
        ? null
        : await Promise.race([lookup.catch(() => null), sleep(PLAN_TIMEOUT_MS).then(() => null)]);
    if (found) {
      try {
        const snap = await fetchSnapshot(
          this.libp2p,
          found.peers,
          this.run.runId,
          this.log,
          defaultSyncOptions,
          found.plan,
          decode,
        );
        return { ...snap, via: "dht experts" };
      } catch (err) {
        this.log.info({ err: (err as Error).message }, "planned snapshot failed; asking peers");
      }
    }
    const snap = await fetchSnapshot(this.libp2p, this.connectedPeers(), this.run.runId, this.log, defaultSyncOptions, undefined, decode);
    return { ...snap, via: "connected peers" };
  }

  /**
   * Takes a downloaded snapshot as our state. The commit that produced it (its checksum must be
   * the snapshot's) anchors the chain, so the next gossip commit chains onto it; without it the
   * first replayed commit sets the chain.
   */
  private async adoptSnapshot(
    snap: Awaited<ReturnType<SwarmDaemon["downloadSnapshot"]>>,
    message: string,
  ): Promise<void> {
    let anchor: { commit: CommitData; encoded: Uint8Array } | null = null;
    for (const peer of snap.iteration > 0 ? this.connectedPeers() : []) {
      const got = await fetchCommits(this.libp2p, peer, this.run.runId, snap.iteration - 1).catch(() => []);
      const encoded = got[0];
      if (!encoded) continue;
      const commit = decodeCommitData(encoded);
      if (commit.iteration === snap.iteration - 1 && toHex(commit.checksum) === snap.checksum) {
        anchor = { commit, encoded };
        break;
      }
    }
    this.rounds.jumpTo(snap.weights, snap.iteration, snap.checksum, anchor);
    this.chainKnown = anchor !== null || snap.iteration === 0;
    const { iteration, checksum, agreeing, sources, via } = snap;
    this.log.info({ iteration, checksum, agreeing, sources, via, anchored: anchor !== null }, message);
  }

  /**
   * Snapshots at multiples of checkEvery, so every honest peer serves the same bytes; at start,
   * also the state we hold, so a restarted node can serve it.
   */
  private takeSnapshot(force = false): void {
    const t = this.head;
    if ((!force && t % this.opts.checkEvery !== 0) || this.snapshots.latest?.iteration === t) return;
    this.snapshots.take(t, this.rounds.checksums.get(t) ?? this.replica.checksum(), this.replica.weights);
  }

  /** Test hook (see fault-hooks.ts): flips one weight bit after the configured iteration. */
  private maybeInjectFault(t: number): void {
    if (!this.faults.corruptNow(t)) return;
    flipOneBit(this.replica.weights);
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
    this.metrics?.checksumChecks.inc(sums.length);
    this.metrics?.checksumMismatches.inc(disagree.length);
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
    this.metrics?.repairs.inc();
    this.rounds.follow();
    try {
      const snap = await this.downloadSnapshot(null);
      await this.adoptSnapshot(snap, "state repaired from snapshot");
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
        const c = decodeCommitData(bytes);
        if (c.iteration !== this.head) continue;
        if (!this.chainKnown) {
          // A snapshot whose producing commit no peer served: it sits exactly before this commit.
          this.rounds.resumeChain(c.prevHash, []);
          this.chainKnown = true;
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
    let dialedAt = Date.now();
    while (Date.now() < deadline && !enough()) {
      // libp2p dials bootstrap peers once; one still starting (a compose service, a spot
      // instance booting) refuses that dial, so keep trying while we know nobody.
      if (this.libp2p.getConnections().length === 0 && Date.now() - dialedAt > 1000) {
        dialedAt = Date.now();
        void this.dialBootstrap();
      }
      await sleep(100);
    }
    // Look for a snapshot in the DHT meanwhile, in case we turn out to be far behind.
    if (enough()) this.joinPlan = this.snapshotPlan(this.head + 1).catch(() => null);
    // Hear every connected peer's head before deciding we are not behind: a peer still starting
    // (its sync protocols not yet registered) may hold commits we lack, and proposing those
    // iterations again would fork the chain.
    while (Date.now() < deadline) {
      const peers = this.connectedPeers();
      if ((await this.peersHead(peers)).answered >= peers.length) break;
      await sleep(200);
    }
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
    this.joinPlan = null;
    this.rounds.start();
  }

  /** Dials the configured bootstrap peers (failures are expected while they start). */
  private async dialBootstrap(): Promise<void> {
    await Promise.allSettled(
      this.opts.network.bootstrap.map((a) =>
        this.libp2p.dial(multiaddr(a), { signal: AbortSignal.timeout(2000) }),
      ),
    );
  }

  /**
   * A commit that does not chain onto ours: usually a one-step fork whose other commit gossip
   * lost. Fetch the peers' commit for the previous iteration over the commits protocol and let the
   * fork choice decide; if we switch, the new commit chains and applies. Otherwise compare
   * checksums with peers (and repair on a majority).
   */
  private async resolveFork(commit: CommitData): Promise<void> {
    if (this.resolvingFork || this.repairing) return;
    this.resolvingFork = true;
    try {
      for (const peer of this.connectedPeers()) {
        const got = await fetchCommits(this.libp2p, peer, this.run.runId, commit.iteration - 1).catch(() => []);
        const prev = got.map(decodeCommitData).find((c) => c.iteration === commit.iteration - 1);
        if (!prev) continue;
        this.rounds.onCommit(prev);
        if (this.head === commit.iteration) this.rounds.onCommit(commit);
        if (this.head > commit.iteration) {
          this.log.info({ iteration: commit.iteration }, "fork resolved");
          return;
        }
      }
      for (const peer of this.connectedPeers()) if (await this.resolveDeepFork(peer)) return;
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
    const ours = new Map(this.rounds.log.map((l) => [l.commit.iteration, l]));
    for (const base of this.snapshots.all()) {
      if (base.iteration > this.head) continue;
      const from = Math.max(0, base.iteration - 1);
      const encoded = await fetchCommits(this.libp2p, peer, this.run.runId, from).catch(() => []);
      const theirs = encoded.map((bytes) => ({ commit: decodeCommitData(bytes), bytes, hash: commitHash(bytes) }));
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
      const mine = ours.get(fork.commit.iteration);
      if (!mine || !isBetter(fork.commit, fork.hash, mine.commit, mine.hash)) return false;
      this.log.warn({ iteration: fork.commit.iteration, base: base.iteration, peer: peer.toString() }, "switching to a better fork");
      const wasActive = this.rounds.isActive;
      this.repairing = true;
      this.rounds.follow();
      try {
        this.rounds.jumpTo(
          base.weights.slice(),
          base.iteration,
          base.checksum,
          anchor ? { commit: anchor.commit, encoded: anchor.encoded } : null,
        );
        for (const t of replay) {
          if (t.commit.iteration !== this.head) break;
          this.rounds.onCommit(t.commit);
          if (this.rounds.checksums.get(this.head) !== toHex(t.commit.checksum)) {
            this.log.warn({ iteration: t.commit.iteration }, "replayed fork does not check out; repairing");
            this.repairing = false;
            await this.repair();
            return true;
          }
        }
        this.log.info({ iteration: this.head, checksum: this.replica.checksum() }, "fork switched");
      } finally {
        this.repairing = false;
        this.rounds.forgetPeersHead();
        if (wasActive) this.rounds.start();
      }
      return true;
    }
    return false;
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
  private async peersHead(
    peers: PeerId[],
  ): Promise<{ head: number; peer?: PeerId; answered: number }> {
    const heads = await Promise.allSettled(peers.map((p) => fetchChecksum(this.libp2p, p, this.run.runId)));
    let best: { head: number; peer?: PeerId } = { head: -1 };
    let answered = 0;
    heads.forEach((h, i) => {
      if (h.status === "fulfilled") answered++;
      if (h.status === "fulfilled" && h.value.known && h.value.iteration > best.head) {
        best = { head: h.value.iteration, peer: peers[i] };
      }
    });
    return { ...best, answered };
  }

  private async catchUp(reason: string): Promise<void> {
    if (this.repairing) return;
    const peers = this.connectedPeers();
    const { head: best, peer: ahead } = await this.peersHead(peers);
    if (best <= this.head) {
      // Nobody we can ask is ahead after all (a stale report): we may propose again.
      this.rounds.forgetPeersHead();
      return;
    }
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
        const snap = await this.downloadSnapshot(this.head + 1);
        if (snap.iteration > this.head) await this.adoptSnapshot(snap, "snapshot downloaded");
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
      this.rounds.forgetPeersHead();
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
          this.spec,
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
      await this.http?.close();
      this.rounds?.stop();
      if (this.heartbeat) clearInterval(this.heartbeat);
      if (this.expertTimer) clearInterval(this.expertTimer);
      // Withdraw our expert records if the DHT answers quickly; otherwise they expire by TTL.
      await Promise.race([this.experts?.stop(), sleep(1000)]);
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
      await this.commitLog?.close();
      await this.libp2p.stop();
      await this.monitor?.close();
      this.replica.dispose();
      this.log.info({ iteration: result.iteration }, "stopped");
      this.resolveDone(result);
      return result;
    })();
    return this.stopping;
  }
}
