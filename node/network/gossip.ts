/**
 * The run's gossip, both ways. In: topic -> fault hook -> typed validator (membership, then the
 * signature of the author the message names) -> verdict to gossipsub (rejects lower the relayer's
 * score) -> the handler of that kind, with the decoded message, its signer and the bytes it came
 * as. Out: contributions, commits, and the heartbeats, leave notice and fraud proofs this node signs. Gossip
 * carries no envelope signature (StrictNoSign, libp2p.ts): each message's own signature names its
 * signer. The application-level dedupe (seen-cache.ts) and the budgets of what is verified on a
 * signer's word (notice-budget.ts) are kept here too. A commit's signer is its proposer.
 */
import { TopicValidatorResult } from "@libp2p/gossipsub";
import {
  type ContributionMessage,
  encodeContribution,
  encodeHeartbeat,
  encodeLeave,
  encodeProof,
  type Heartbeat,
  heartbeatBody,
  leaveBody,
  proofBody,
} from "../../protocol/codec.js";
import { noticeSignedBytes, peerIdStringBytes } from "../../protocol/signing.js";
import { SeedswarmError } from "../../protocol/errors.js";
import { FUTURE_ITERATIONS, HINT_WINDOW, NOTICE_BEHIND } from "../../protocol/limits.js";
import { parseTopic, stringifyTopic, TOPIC_KINDS, type TopicKind } from "../../protocol/topics.js";
import {
  GOSSIP_VALIDATORS,
  type GossipContext,
  type GossipMessages,
  gossipSigner,
  toVerdict,
} from "../../protocol/validation.js";
import type { Logger } from "../ground/index.js";
import type { FaultHooks } from "../ops/fault-hooks.js";
import type { SwarmNode } from "./libp2p.js";
import { sharedVerifier, type Signer } from "../chain/signatures.js";
import type { ProofClaim } from "../chain/audits.js";
import { NoticeBudget, ProposerBudget } from "./notice-budget.js";
import { SeenCache, seenKey } from "./seen-cache.js";

/** How this node signs its notices (heartbeats, leave): its peer id bytes and its key. */
export interface NoticeSigner {
  readonly author: Uint8Array;
  readonly sign: Signer;
}

/** What a handler gets: the validated message, its signer and the exact bytes received. */
export type GossipHandlers = {
  readonly [K in TopicKind]: (message: GossipMessages[K], author: string, data: Uint8Array) => void;
};

/**
 * A contribution too old to forward (ignored), from a signed author that is behind us and still
 * contributing: the rounds wait for it, so it gets included instead of chasing us.
 */
export type LateHandler = (author: string, iteration: number) => void;

/** Told the outcome of every message that reaches validation (metrics): its code, or "ok". */
export type VerdictCounter = (kind: TopicKind, verdict: "accept" | "ignore" | "reject", code: string) => void;

/** What validation needs to know of the node's state when a message arrives. */
export interface GossipView {
  /** Next iteration this node applies. */
  head(): number;
  readonly maxPayloadBytes: number;
  payloadProblem(payload: Uint8Array, iteration: number): string | null;
  /** Whether a peer id may take part in the run (protocol/membership.ts). */
  admits(peerId: string): boolean;
  /** Whether our chain excluded a peer id, for an offence we recomputed (its messages are ignored). */
  excluded(peerId: string): boolean;
  /** Which newcomers' contributions are worth a signature check (node/chain/newcomer-gate.ts); absent: all. */
  readonly newcomers?: GossipContext["newcomers"];
  /** The run's `staleness` (0 without pipelined rounds). */
  readonly maxStaleness: number;
  /** Whether a peer is an author of our recent commits (their notices and commits are not a newcomer's). Absent: nobody. */
  isMember?(peerId: string): boolean;
  /** Why a commit breaks the admission of our round (asked before its entries' signatures); absent: nothing known. */
  commitProblem?: GossipContext["commitProblem"];
}

/**
 * Distinct (kind, signer, iteration) keys remembered for dedupe; the oldest goes first. Keys of
 * iterations behind the head are dropped as the head passes them (OLD_ITERATION is checked before
 * the dedupe), so this cap only bites on a flood for iterations ahead: 20,000 keys (~7 MiB) cover
 * about 20 iterations of a 1,024-node swarm. (It was 100,000 and never pruned: a long run kept
 * every key until the cap, ~35 MiB, whether attacked or not.)
 */
export const SEEN_KEEP = 20_000;
/** Dedupe keys of notices (heartbeat, leave, proof), kept apart so a flood of them evicts no commit's. */
export const NOTICES_SEEN_KEEP = 8_192;

const VERDICT: Readonly<Record<"accept" | "ignore" | "reject", TopicValidatorResult>> = {
  accept: TopicValidatorResult.Accept,
  ignore: TopicValidatorResult.Ignore,
  reject: TopicValidatorResult.Reject,
};

export class Gossip {
  /** The topic string of each kind for this run. */
  readonly topics: Readonly<Record<TopicKind, string>>;
  private readonly seen = new SeenCache(SEEN_KEEP);
  /** Notices may lag our head (a slow peer's heartbeat): their keys are kept NOTICE_BEHIND further. */
  private readonly noticesSeen = new SeenCache(NOTICES_SEEN_KEEP, NOTICE_BEHIND);
  private readonly notices: NoticeBudget;
  private readonly proposers: ProposerBudget;
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly libp2p: SwarmNode,
    private readonly runId: string,
    private readonly view: GossipView,
    private readonly signer: NoticeSigner,
    private readonly faults: FaultHooks,
    private readonly log: Logger,
    private readonly counted: VerdictCounter = () => {},
  ) {
    this.topics = Gossip.topicsOf(runId);
    const isMember = (peer: string) => view.isMember?.(peer) === true;
    this.notices = new NoticeBudget(isMember);
    this.proposers = new ProposerBudget(isMember);
  }

  /** The topic string of each kind for a run (libp2p's peer scoring needs them before gossip exists). */
  static topicsOf(runId: string): Readonly<Record<TopicKind, string>> {
    return Object.fromEntries(TOPIC_KINDS.map((kind) => [kind, stringifyTopic({ runId, kind })])) as Record<
      TopicKind,
      string
    >;
  }

  /** Starts handing validated messages to `handlers` and subscribes to every topic of the run. */
  listen(handlers: GossipHandlers, late: LateHandler): void {
    const pubsub = this.libp2p.services.pubsub;
    pubsub.addEventListener("gossipsub:message", (evt) => {
      const { propagationSource, msgId, msg } = evt.detail;
      const source = propagationSource.toString();
      const topic = parseTopic(msg.topic);
      if (!topic || topic.runId !== this.runId) {
        pubsub.reportMessageValidationResult(msgId, source, VERDICT.ignore);
        return;
      }
      if (this.faults.partitioned(this.view.head())) {
        // Test hook (SEEDSWARM_FAULT=partition@N-M): this node hears no gossip for a while.
        pubsub.reportMessageValidationResult(msgId, source, VERDICT.ignore);
        return;
      }
      this.handle(topic.kind, msgId, source, msg.data, handlers, late);
    });
    for (const t of Object.values(this.topics)) pubsub.subscribe(t);
  }

  /** One kind's path: its validator, the verdict, then its handler (typed by the kind). */
  private handle<K extends TopicKind>(
    kind: K,
    msgId: string,
    source: string,
    data: Uint8Array,
    handlers: GossipHandlers,
    late: LateHandler,
  ): void {
    const ctx = this.context();
    const res = toVerdict(() => GOSSIP_VALIDATORS[kind](data, ctx));
    this.libp2p.services.pubsub.reportMessageValidationResult(msgId, source, VERDICT[res.verdict]);
    this.counted(kind, res.verdict, res.verdict === "accept" ? "ok" : res.code);
    if (res.verdict !== "accept") {
      // An old contribution's author is proven before it is called old (validateContribution).
      const context = res.error instanceof SeedswarmError ? res.error.context : {};
      if (kind === "contribution" && res.code === "OLD_ITERATION" && typeof context.author === "string")
        late(context.author, Number(context.iteration));
      // `from`: the peer we heard it from (its relayer; the author it names is unproven here).
      this.log.debug({ kind, from: source, code: res.code, verdict: res.verdict, reason: res.error.message }, "gossip not accepted");
      return;
    }
    handlers[kind](res.value, gossipSigner(kind, res.value), data);
  }

  private context(): GossipContext {
    const head = Math.max(0, this.view.head() - 1);
    const cacheOf = (kind: TopicKind) => (kind === "contribution" || kind === "commit" ? this.seen : this.noticesSeen);
    return {
      runId: this.runId,
      // One behind our head: a commit for the iteration just applied may still win the fork choice.
      head,
      window: FUTURE_ITERATIONS,
      hintWindow: HINT_WINDOW,
      maxPayloadBytes: this.view.maxPayloadBytes,
      payloadProblem: (payload, iteration) => this.view.payloadProblem(payload, iteration),
      admits: (peer) => this.view.admits(peer),
      excluded: (peer) => this.view.excluded(peer),
      newcomers: this.view.newcomers,
      commitProblem: this.view.commitProblem,
      maxStaleness: this.view.maxStaleness,
      checkSignature: sharedVerifier.check,
      known: (kind, signer, iteration, data) => cacheOf(kind).known(seenKey(kind, signer, iteration), data),
      seen: (kind, signer, iteration, data) => cacheOf(kind).record(seenKey(kind, signer, iteration), iteration, data, head),
      mayVerifyEntries: (proposer, iteration) => this.proposers.mayVerify(proposer, iteration),
      noticeBudget: (signer, take) => this.notices.notice(signer, take),
    };
  }

  /** Dedupe keys held (for tests of the bound). */
  get seenSize(): number {
    return this.seen.size;
  }

  publishContribution(m: ContributionMessage): Promise<unknown> {
    return this.libp2p.services.pubsub.publish(this.topics.contribution, encodeContribution(m));
  }

  publishCommit(encoded: Uint8Array): Promise<unknown> {
    return this.libp2p.services.pubsub.publish(this.topics.commit, encoded);
  }

  /** Announces, signed, that this node leaves; a failure is not worth waiting for. */
  async publishLeave(iteration: number): Promise<void> {
    const body = { runId: this.runId, iteration, author: this.signer.author };
    const signature = this.signer.sign(noticeSignedBytes("leave", leaveBody(body)));
    await this.libp2p.services.pubsub
      .publish(this.topics.leave, encodeLeave({ ...body, signature }))
      .catch(() => {});
  }

  /** Gossips, signed, a fraud proof our audit found; a failure (no peers yet) is not worth waiting for. */
  async publishProof(p: ProofClaim): Promise<void> {
    const body = { runId: this.runId, iteration: p.iteration, commitHash: p.commitHash, accused: peerIdStringBytes(p.accused), author: this.signer.author };
    const signature = this.signer.sign(noticeSignedBytes("proof", proofBody(body)));
    await this.libp2p.services.pubsub.publish(this.topics.proof, encodeProof({ ...body, signature })).catch(() => {});
  }

  /** Publishes `beat()` (when it has one), signed, every `everyMs`, until stop. */
  startHeartbeat(everyMs: number, beat: () => Omit<Heartbeat, "runId" | "author" | "signature"> | null): void {
    this.heartbeat = setInterval(() => {
      const b = beat();
      if (!b) return;
      const body = { runId: this.runId, ...b, author: this.signer.author };
      const signature = this.signer.sign(noticeSignedBytes("heartbeat", heartbeatBody(body)));
      this.libp2p.services.pubsub
        .publish(this.topics.heartbeat, encodeHeartbeat({ ...body, signature }))
        .catch(() => {});
    }, everyMs);
  }

  stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
  }
}
