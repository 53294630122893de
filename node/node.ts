/**
 * The daemon's composition root (Lodestar's habit): builds every subsystem in a fixed order and
 * hands events between them; what each does lives in its own folder.
 *
 *   build: identity -> run and replica from disk (when the spec is given: stale temp files
 *          removed, newest readable checkpoint, then the commit log replayed past it) -> libp2p
 *          -> run and replica from disk (joined by id: spec from a peer) -> a node without
 *          initial weights or checkpoint: a verified peer snapshot -> rounds (chain/), given the
 *          chain it resumes ->
 *          observability (observe/) -> gossip (network/) -> sync protocols, snapshots (sync/) ->
 *          join -> heartbeat
 *   close: http -> rounds -> heartbeat -> snapshot records -> leave notice -> checkpoint ->
 *          sync protocols -> commit log -> libp2p -> metrics log -> replica
 *
 * Closing is the build order reversed except that the node first stops taking part (http says
 * "leaving", no more rounds or heartbeats), then says goodbye and checkpoints while libp2p and
 * the state still exist. One status says where the daemon is; one AbortController ends what is
 * still waiting (DHT queries, the join wait) when it stops.
 */
import "./ground/polyfills.js";
import { setTimeout as sleep } from "node:timers/promises";
import { peerIdFromString } from "@libp2p/peer-id";
import { fromHex } from "../protocol/bytes.js";
import { SeedswarmError } from "../protocol/errors.js";
import { Membership } from "../protocol/membership.js";
import { peerIdStringBytes } from "../protocol/signing.js";
import { canonicalJson, type RunSpec, runIdOf } from "../protocol/run-spec.js";
import { activeBackend, useBackend } from "../training/engine.js";
import type { Replica } from "../training/replica.js";
import type { Author } from "../training/rng/seeds.js";
import type { TrainingRun } from "../training/run-context.js";
import { openTrainingRun } from "./store/training-run.js";
import { stateFromBytes } from "../training/state-bytes.js";
import type { CommitLogFile } from "./chain/commit-log.js";
import { NewcomerGate } from "./chain/newcomer-gate.js";
import { Penalties, PENALTY } from "./chain/penalties.js";
import { Audits, type ProofClaim } from "./chain/audits.js";
import { Rounds } from "./chain/rounds.js";
import { sharedVerifier, signerOf } from "./chain/signatures.js";
import { Gossip } from "./network/gossip.js";
import { createSwarmNode, type SwarmNode } from "./network/libp2p.js";
import { Peers } from "./network/peers.js";
import type { NodeOptions } from "./node-options.js";
import { type HttpServer, startHttpServer } from "./observe/http-server.js";
import { type FaultReporter, faultReporter } from "./observe/faults.js";
import { detach, type Logger } from "./ground/index.js";
import { createMetrics, type Metrics } from "./observe/metrics.js";
import { defaultRunMonitorOptions, type NodeState, RunMonitor, stallMsFor } from "./observe/run-monitor.js";
import { faultHooks } from "./ops/fault-hooks.js";
import { knownPeersPath, metricsLogPath } from "./store/data-dir.js";
import { readKnownPeers } from "./store/known-peers.js";
import { loadOrCreateIdentity } from "./store/identity.js";
import { Checkpointer } from "./checkpointer.js";
import { listenToGossip } from "./gossip-handlers.js";
import { loadLocalState, loadState } from "./load-state.js";
import { RoundsEventHandler } from "./rounds-events.js";
import { CatchUp, type SyncParts } from "./sync/catch-up.js";
import { ChainFix } from "./sync/chain-fix.js";
import { serveSync } from "./sync/protocols.js";
import { Repair } from "./sync/repair.js";
import { SnapshotPlanner } from "./sync/snapshot-plan.js";
import { SnapshotStore } from "./sync/snapshot-store.js";
import { specOfRun } from "./sync/spec-of-run.js";

export { defaultNodeOptions, type NodeOptions } from "./node-options.js";

export class NodeError extends SeedswarmError<"NODE_BAD_OPTIONS" | "NODE_NOT_MEMBER"> {}


export interface NodeResult {
  readonly iteration: number;
  readonly checksum: string;
  readonly peerId: string;
  /** False when the checkpoint on leaving could not be written (a full disk): the CLI exits 1. */
  readonly checkpointed: boolean;
}

/** Where the daemon is: starting, joining (catching up), running (training or following), finishing (last checks), stopping, stopped. */
export type DaemonStatus = "starting" | "joining" | "running" | "finishing" | "stopping" | "stopped";

/** A running swarm node. `stopped` resolves when it has left and closed. */
export class SwarmDaemon {
  private status: DaemonStatus = "starting";
  private readonly abort = new AbortController();
  /** Charges against peers that signed provably bad messages (never their relayers). */
  readonly penalties = new Penalties();
  private readonly log: Logger;
  /** Test fault hooks (SEEDSWARM_FAULT). */
  private readonly faults = faultHooks();
  /** Handled faults: one structured line and one /status count each. */
  private readonly fault: FaultReporter;
  private readonly snapshots = new SnapshotStore();
  // Observability: always measured (the metrics log needs libp2p's byte counts), served on --http.
  private readonly metrics: Metrics | null = createMetrics();
  private libp2p!: SwarmNode;
  private run!: TrainingRun;
  private spec!: RunSpec;
  /** Who may take part: open until the spec is known (a node joining by id), then the spec's. */
  private membership = Membership.OPEN;
  private replica!: Replica;
  private self!: Author;
  private rounds!: Rounds;
  private events!: RoundsEventHandler;
  private audits?: Audits;
  private gossip!: Gossip;
  private peers!: Peers;
  private planner!: SnapshotPlanner;
  private catchUp!: CatchUp;
  private repair!: Repair;
  private commitLog!: CommitLogFile;
  private checkpointer!: Checkpointer;
  private closeSync: () => Promise<void> = async () => {};
  private monitor?: RunMonitor;
  private http?: HttpServer;
  private stopping: Promise<NodeResult> | null = null;
  private resolveDone!: (r: NodeResult) => void;
  readonly stopped = new Promise<NodeResult>((r) => (this.resolveDone = r));

  constructor(
    private readonly opts: NodeOptions,
    log: Logger,
  ) {
    this.log = log.child({ module: "node" });
    this.fault = faultReporter(this.log, this.metrics);
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
    const peerId = identity.peerId.toString();
    // The run is opened before libp2p starts when its spec is known, so peers that connect find
    // this node ready to answer; a node joining by id must connect first to fetch the spec.
    const open = async (spec: RunSpec) => {
      const membership = Membership.of(spec);
      // Every peer would drop what we send: refuse to start rather than train alone, unheard.
      if (!membership.admits(peerId))
        throw new NodeError("NODE_NOT_MEMBER", `this node (${peerId}) is not among the ${membership.size} members of run ${runIdOf(spec)}`, {
          peerId,
          members: membership.size,
        });
      this.membership = membership;
      this.spec = spec;
      await useBackend(opts.backend, log);
      this.run = await openTrainingRun(spec, opts, log, opts.lmForward);
    };
    if (opts.spec) await open(opts.spec);
    // Resumed before libp2p starts when the spec is known: a peer never hears us at a head we are
    // still replaying past (issue 16, R5). Joined by id, the spec (and so the run) comes later.
    const local = opts.spec ? await loadLocalState({ opts, runId, spec: this.spec, run: this.run, peerId, log }) : undefined;
    const topics = Gossip.topicsOf(runId);
    // Where our peers listened before a restart: dialled like the bootstrap peers (store/known-peers.ts).
    const known = await readKnownPeers(knownPeersPath(opts.dataDir, runId));
    const bootstrap = [...new Set([...opts.network.bootstrap, ...known])];
    if (known.length > 0) this.log.info({ addresses: known.length }, "dialling the peers known before the restart");
    this.libp2p = await createSwarmNode(
      // Penalties feed gossipsub's score (P5): a peer charged for what it signed gets graylisted.
      { ...opts.network, bootstrap, dhtRunIds: [runId], scoredTopics: Object.values(topics), appSpecificScore: this.penalties.appSpecificScore },
      identity.privateKey,
      log,
      this.metrics?.libp2p,
      () => this.faults.isolated(this.replica?.iteration ?? 0),
    );
    this.peers = new Peers(this.libp2p, runId, topics.commit, bootstrap, log, this.abort.signal, (p) => this.membership.admits(p));
    this.detach(this.peers.dialProviders(), "provider dials");
    if (!opts.spec) await open(await specOfRun(this.libp2p, opts.dataDir, runId, opts.joinWaitMs, this.log));
    const blame = (peer: string, reason: string, cost: number) => this.penalise(peer, cost, reason);
    const { spec, run, libp2p, peers } = this;
    const loaded = await loadState({ opts, runId, spec, run, peerId, libp2p, peers, log, blame, signal: this.abort.signal }, local);
    const { chain } = loaded;
    this.replica = loaded.replica;
    this.self = loaded.self;
    this.commitLog = loaded.commitLog;
    log.info({ peerId: this.self.id, runId, addrs: this.libp2p.getMultiaddrs().map(String), iteration: this.head }, "node started");

    this.gossip = new Gossip(
      this.libp2p,
      runId,
      {
        head: () => this.head,
        maxPayloadBytes: this.run.algorithm.maxPayloadBytes,
        payloadProblem: (payload, iteration) => this.run.algorithm.payloadProblem(payload, iteration),
        admits: (peerId) => this.membership.admits(peerId),
        // An author the chain excluded (for an offence we recomputed) is ignored on every topic.
        excluded: (peerId) => this.rounds?.isExcluded(peerId) === true,
        newcomers: new NewcomerGate(this.run.runId, () => this.rounds?.head ?? 0, (a) => this.rounds?.isMember(a) ?? true),
        maxStaleness: this.spec.staleness ?? 0,
        isMember: (peerId) => this.rounds?.isMember(peerId) === true,
        commitProblem: (m, proposer) => this.rounds?.commitProblem(m, proposer) ?? null,
      },
      { author: peerIdStringBytes(this.self.id), sign: signerOf(identity.privateKey) },
      this.faults,
      log,
      (kind, verdict, code) => this.metrics?.gossipValidated.inc({ kind, verdict, code }),
    );
    this.rounds = new Rounds(
      this.self,
      this.run,
      this.replica,
      {
        publishContribution: async (m) => void (await this.gossip.publishContribution(m)),
        publishCommit: async (encoded) => {
          this.metrics?.commitsProposed.inc();
          await this.gossip.publishCommit(encoded);
        },
        // Remembered as verified: our own entry in every commit is then a cache hit.
        sign: signerOf(identity.privateKey, sharedVerifier),
      },
      {
        roundTimeoutMs: this.spec.roundTimeoutMs,
        stopAt: Math.min(opts.stopAt, this.spec.iterations),
        contribute: true,
        tamper: this.faults.tamper,
        censor: this.faults.censor,
        staleness: this.spec.staleness ?? 0,
        seats: this.membership.seats,
      },
      log.child({ module: "rounds" }),
      (e) => this.events.handle(e),
    );
    const rounds = this.rounds;
    this.checkpointer = new Checkpointer(loaded, rounds, this.peers, knownPeersPath(opts.dataDir, this.run.runId), this.log);
    this.events = new RoundsEventHandler({
      opts,
      run: this.run,
      roundTimeoutMs: this.spec.roundTimeoutMs,
      rounds,
      replica: this.replica,
      commitLog: this.commitLog,
      libp2p: this.libp2p,
      peers: this.peers,
      faults: this.faults,
      metrics: this.metrics,
      log: this.log,
      later: () => ({ monitor: this.monitor, catchUp: this.catchUp, repair: this.repair }),
      takeSnapshot: () => this.takeSnapshot(),
      checkpoint: () => this.checkpoint(),
      finish: () => this.finish(),
      penalise: (peer, cost, reason, iteration) => this.penalise(peer, cost, reason, iteration),
      fault: this.fault,
    });
    const chainView = { commitAt: (t: number) => rounds.commitAt(t), checksumAt: (t: number) => rounds.checksumAt(t), snapshots: () => this.snapshots.all(), isExcluded: (a: string) => rounds.isExcluded(a) };
    // Our proofs are gossiped, so whichever node proposes first can record the exclusion.
    const publishProof = (p: ProofClaim) => this.detach(this.gossip.publishProof(p), "fraud proof");
    const chargeFalseProof = (auditor: string, reason: string, iteration: number) => this.penalise(auditor, PENALTY.falseAccusation, reason, iteration);
    const auditOpts = { budget: opts.auditBudget, liar: this.faults.auditLiar, staleness: this.spec.staleness ?? 0, publishProof, chargeFalseProof };
    this.audits = new Audits(this.self.id, this.run, chainView, auditOpts, log.child({ module: "audits" }), this.fault);
    this.rounds.useAudits(this.audits);
    // The chain we resume, before anything from gossip can be applied on top of it.
    this.rounds.resumeChain(chain.hash, chain.authors);
    this.rounds.restoreLog(chain.commits);
    this.rounds.addChainBehind([], chain.excluded ?? []);
    this.rounds.follow();
    await this.startObservability();
    listenToGossip({
      gossip: this.gossip,
      rounds,
      events: this.events,
      log,
      repair: () => this.repair,
      // Built after listening starts: until then every hint is worth a pull.
      hintWorth: (peer) => (this.catchUp as CatchUp | undefined)?.hintWorth(peer) ?? true,
      detach: (promise, what) => this.detach(promise, what),
      audits: this.audits,
    });

    this.closeSync = await serveSync(
      this.libp2p,
      {
        runId,
        specJson: canonicalJson(this.spec),
        snapshot: (iteration) => this.snapshots.find(iteration),
        commitsFrom: (from, max) => this.rounds.commitsFrom(from, max),
        checksumAt: (iteration) => {
          const it = iteration < 0 ? this.head : iteration;
          const sum = this.rounds.checksumAt(it);
          return sum ? { iteration: it, checksum: sum } : null;
        },
        admits: (peerId) => this.membership.admits(peerId),
        served: (protocol, outcome) => this.metrics?.syncRequests.inc({ protocol, outcome }),
      },
      log,
    );
    this.takeSnapshot(true);
    // State shards as Learning@home experts: joiners find who serves which chunk of which snapshot.
    this.planner = new SnapshotPlanner(this.libp2p, runId, this.snapshots, this.peers, this.replica.weights.length, log, this.membership, signerOf(identity.privateKey));
    this.planner.start();
    const fix = new ChainFix(this.rounds);
    const parts: SyncParts = {
      libp2p: this.libp2p,
      runId,
      self: this.self.id,
      rounds: this.rounds,
      replica: this.replica,
      peers: this.peers,
      planner: this.planner,
      fix,
      log,
      decode: (bytes) => stateFromBytes(this.run.spec.model, bytes, this.replica.weights.length),
      blame: (peer, reason, cost) => this.penalise(peer, cost, reason),
      faults: faultReporter(log, this.metrics),
      weightCount: this.replica.weights.length,
      payloadProblem: (payload, iteration) => this.run.algorithm.payloadProblem(payload, iteration),
    };
    this.catchUp = new CatchUp(parts, opts, this.abort.signal);
    this.repair = new Repair(parts, this.catchUp, this.snapshots, this.metrics);
    // Announce the run in the DHT in the background (providers were looked for at start).
    this.peers.provide();

    this.status = "joining";
    await this.catchUp.join();
    // The run may already be over (a restart at its last iteration): then finish() moved on.
    if (this.status === "joining") this.status = "running";
    this.monitor?.joined();
    this.gossip.startHeartbeat(Math.max(500, this.spec.roundTimeoutMs), () => {
      const sum = this.rounds.checksumAt(this.head);
      return sum ? { iteration: this.head, checksum: fromHex(sum), joinedAt: this.self.joinedAt } : null;
    });
  }

  /** The metrics log, accuracy evaluations and (with opts.http) the HTTP endpoint. */
  private async startObservability(): Promise<void> {
    const view = {
      peerId: this.self.id,
      state: () => this.state(),
      peers: () => this.peers.connected().length,
      checksum: () => this.rounds.checksumAt(this.head) ?? this.replica.checksum(),
      backend: () => activeBackend() ?? this.opts.backend,
    };
    const monitorOpts = { ...defaultRunMonitorOptions, evalEvery: this.opts.evalEvery, evalLimit: this.opts.evalLimit, stallMs: stallMsFor(this.run.spec.roundTimeoutMs) };
    this.monitor = new RunMonitor(this.run, this.replica, view, this.metrics, metricsLogPath(this.opts.dataDir, this.run.runId), monitorOpts, this.log);
    if (this.opts.http) this.http = await startHttpServer(this.opts.http, this.monitor, this.metrics, this.log);
  }

  /** What the node is doing, for /status and /healthz. */
  state(): NodeState {
    switch (this.status) {
      case "starting":
      case "joining":
        return "joining";
      case "running":
        return this.rounds.isActive ? "training" : "following";
      default:
        return "leaving";
    }
  }

  /**
   * Charges the signer of a provably bad message (`iteration`: the message's, else our head: 0
   * while a node without initial weights takes its state from peers); disconnects it past the
   * threshold.
   */
  private penalise(peer: string, cost: number, reason: string, iteration = this.replica?.iteration ?? 0): void {
    // Our peer id, not self.id: peers may be blamed while the state loads, before self is set.
    if (peer === this.peerId) return;
    const score = this.penalties.charge(peer, cost);
    this.fault("peerPenalised", "peer penalised", { iteration, peer, reason, score });
    if (this.penalties.shunned(peer))
      this.detach(this.libp2p.hangUp(peerIdFromString(peer)), "disconnect a penalised peer");
  }

  /** At the run's end: agree with the slower peers (repairing if need be), answer their final checks a moment, leave. */
  private async finish(): Promise<void> {
    if (this.status === "finishing" || this.status === "stopping" || this.status === "stopped") return;
    this.status = "finishing";
    this.log.info({ iteration: this.head, checksum: this.replica.checksum() }, "run length reached");
    const pause = Math.min(1000, this.spec.roundTimeoutMs);
    await sleep(pause);
    await this.repair.settleAtEnd(this.head, Math.max(15_000, 10 * this.spec.roundTimeoutMs), pause, this.abort.signal);
    // The check moved us onto the swarm's chain behind the run's end (a healed partition): train on.
    if (this.head < Math.min(this.opts.stopAt, this.spec.iterations)) {
      this.log.info({ iteration: this.head }, "the final check moved us back; training on");
      this.status = "running";
      return;
    }
    await sleep(pause);
    await this.stop("done");
  }

  /**
   * Snapshots at multiples of checkEvery, so every honest peer serves the same bytes; at start,
   * also the state we hold, so a restarted node can serve it.
   */
  private takeSnapshot(force = false): void {
    const t = this.head;
    if ((!force && t % this.opts.checkEvery !== 0) || this.snapshots.latest?.iteration === t) return;
    this.snapshots.take(t, this.rounds.checksumAt(t) ?? this.replica.checksum(), this.replica.weights);
  }

  /** Runs a promise in the background with this node as its owner (failures logged). */
  private detach(promise: Promise<unknown>, what: string): void {
    detach(promise, this.log, what);
  }

  /** Writes a checkpoint of the current state (checkpointer.ts). Never rejects; true when written. */
  async checkpoint(): Promise<boolean> {
    return this.checkpointer.write();
  }

  /** Leaves: stop contributing, announce, checkpoint, stop libp2p. Idempotent. */
  stop(reason: string): Promise<NodeResult> {
    if (this.stopping) return this.stopping;
    this.status = "stopping";
    this.abort.abort();
    this.stopping = (async () => {
      this.log.info({ reason, iteration: this.head }, "leaving");
      if (this.audits?.enabled) this.log.info({ ...this.audits.counts, cpuShare: Number(this.audits.cpuShare.toFixed(4)) }, "audit summary");
      await this.http?.close();
      this.rounds?.stop();
      this.gossip?.stopHeartbeat();
      // Withdraw our expert records if the DHT answers within 0.5 s (else they expire by TTL, 15 s:
      // a stopping swarm's queries wait on peers that are going too), while we say goodbye and
      // checkpoint: the three are independent.
      const withdrawn = Promise.race([
        // Owned here: awaited only after the goodbye and the checkpoint, so it must never reject.
        this.planner?.stop().catch((err: Error) => this.log.debug({ err: err.message }, "expert records not withdrawn")),
        sleep(500),
      ]);
      const reached = { iteration: this.head, checksum: this.replica.checksum(), peerId: this.self.id };
      await this.gossip?.publishLeave(this.head);
      const result = { ...reached, checkpointed: await this.checkpoint() };
      await withdrawn;
      if (result.checkpointed) this.log.info({ iteration: result.iteration, checksum: result.checksum }, "checkpoint written");
      await this.closeSync().catch(() => {});
      await this.commitLog?.close();
      await this.libp2p.stop();
      await this.monitor?.close();
      this.replica.dispose();
      this.status = "stopped";
      this.log.info({ iteration: result.iteration }, "stopped");
      this.resolveDone(result);
      return result;
    })();
    return this.stopping;
  }
}
