/**
 * The run's gossip, both ways. In: topic -> fault hook -> membership check -> typed validator ->
 * verdict to gossipsub (rejects lower the sender's score) -> the handler of that kind, with the
 * decoded message and the bytes it came as. Out: contributions, commits, heartbeats and the leave
 * notice. The application-level dedupe ((kind, signer, iteration) -> SHA-256 of up to
 * DIFFERENT_KEEP different messages) lives here too: message ids alone do not stop a replay after
 * gossipsub's seen-cache expires. A commit's signer is its proposer, checked by its signature.
 */
import { TopicValidatorResult } from "@libp2p/gossipsub";
import { sha256Hex } from "../../protocol/bytes.js";
import { encodeContribution, encodeHeartbeat, encodeLeave, } from "../../protocol/codec.js";
import { SeedswarmError } from "../../protocol/errors.js";
import { parseTopic, stringifyTopic, TOPIC_KINDS } from "../../protocol/topics.js";
import { checkMember, GOSSIP_VALIDATORS, toVerdict, } from "../../protocol/validation.js";
import { sharedVerifier } from "../chain/signatures.js";
/**
 * Distinct (kind, signer, iteration) keys remembered for dedupe; the oldest goes first. Keys of
 * iterations behind the head are dropped as the head passes them (OLD_ITERATION is checked before
 * the dedupe), so this cap only bites on a flood for iterations ahead: 20,000 keys (~7 MiB) cover
 * about 20 iterations of a 1,024-node swarm. (It was 100,000 and never pruned: a long run kept
 * every key until the cap, ~35 MiB, whether attacked or not.)
 */
export const SEEN_KEEP = 20_000;
/**
 * Different messages per (kind, signer, iteration) accepted and forwarded: the first, an honest
 * re-contribution after a fork switch, and one more, which lets the rounds hold an equivocation
 * pair. Beyond that an equivocator is only ignored: it cannot make the swarm carry more.
 */
const DIFFERENT_KEEP = 3;
/** How far past our head a contribution or commit may be and still be kept. */
const WINDOW = 1024;
const VERDICT = {
    accept: TopicValidatorResult.Accept,
    ignore: TopicValidatorResult.Ignore,
    reject: TopicValidatorResult.Reject,
};
export class Gossip {
    libp2p;
    runId;
    view;
    faults;
    log;
    counted;
    /** The topic string of each kind for this run. */
    topics;
    seen = new Map();
    /** The keys of `seen` by iteration, so those of iterations we passed go at once. */
    seenByIteration = new Map();
    seenIndexed = 0;
    sweptBelow = 0;
    heartbeat;
    constructor(libp2p, runId, view, faults, log, counted = () => { }) {
        this.libp2p = libp2p;
        this.runId = runId;
        this.view = view;
        this.faults = faults;
        this.log = log;
        this.counted = counted;
        this.topics = Gossip.topicsOf(runId);
    }
    /** The topic string of each kind for a run (libp2p's peer scoring needs them before gossip exists). */
    static topicsOf(runId) {
        return Object.fromEntries(TOPIC_KINDS.map((kind) => [kind, stringifyTopic({ runId, kind })]));
    }
    /** Starts handing validated messages to `handlers` and subscribes to every topic of the run. */
    listen(handlers, late) {
        const pubsub = this.libp2p.services.pubsub;
        pubsub.addEventListener("gossipsub:message", (evt) => {
            const { propagationSource, msgId, msg } = evt.detail;
            const source = propagationSource.toString();
            const topic = parseTopic(msg.topic);
            if (!topic || topic.runId !== this.runId || msg.type !== "signed") {
                pubsub.reportMessageValidationResult(msgId, source, VERDICT.ignore);
                return;
            }
            if (this.faults.partitioned(this.view.head())) {
                // Test hook (SEEDSWARM_FAULT=partition@N-M): this node hears no gossip for a while.
                pubsub.reportMessageValidationResult(msgId, source, VERDICT.ignore);
                return;
            }
            this.handle(topic.kind, msgId, source, msg.data, msg.from.toString(), handlers, late);
        });
        for (const t of Object.values(this.topics))
            pubsub.subscribe(t);
    }
    /** One kind's path: its validator, the verdict, then its handler (typed by the kind). */
    handle(kind, msgId, source, data, author, handlers, late) {
        const ctx = this.context();
        const res = toVerdict(() => {
            checkMember(author, ctx);
            return GOSSIP_VALIDATORS[kind](data, author, ctx);
        });
        this.libp2p.services.pubsub.reportMessageValidationResult(msgId, source, VERDICT[res.verdict]);
        this.counted(kind, res.verdict, res.verdict === "accept" ? "ok" : res.code);
        if (res.verdict !== "accept") {
            if (kind === "contribution" && res.code === "OLD_ITERATION" && res.error instanceof SeedswarmError)
                late(author, Number(res.error.context.iteration));
            this.log.debug({ kind, from: author, code: res.code, verdict: res.verdict, reason: res.error.message }, "gossip not accepted");
            return;
        }
        handlers[kind](res.value, author, data);
    }
    context() {
        return {
            runId: this.runId,
            // One behind our head: a commit for the iteration just applied may still win the fork choice.
            head: Math.max(0, this.view.head() - 1),
            window: WINDOW,
            maxPayloadBytes: this.view.maxPayloadBytes,
            payloadProblem: (payload, iteration) => this.view.payloadProblem(payload, iteration),
            admits: (peer) => this.view.admits(peer),
            maxStaleness: this.view.maxStaleness,
            checkSignature: sharedVerifier.check,
            seen: (kind, signer, iteration, data) => {
                this.forgetSeenBelow(Math.max(0, this.view.head() - 1));
                const key = `${kind}/${signer}/${iteration}`;
                const prev = this.seen.get(key);
                const h = sha256Hex(data);
                if (prev === undefined) {
                    this.seen.set(key, [h]);
                    const keys = this.seenByIteration.get(iteration);
                    if (keys)
                        keys.push(key);
                    else
                        this.seenByIteration.set(iteration, [key]);
                    this.seenIndexed++;
                    if (this.seen.size > SEEN_KEEP)
                        this.seen.delete(this.seen.keys().next().value);
                    // Keys evicted by the cap stay in the index until their iteration passes: rebuild it
                    // from the map when it holds twice the cap, so it is bounded too.
                    if (this.seenIndexed > 2 * SEEN_KEEP)
                        this.reindexSeen();
                    return "new";
                }
                if (prev.includes(h))
                    return "same";
                if (prev.length >= DIFFERENT_KEEP)
                    return "again";
                prev.push(h);
                return "different";
            },
        };
    }
    /** Forgets the dedupe keys of iterations below `head` (done once per head). */
    forgetSeenBelow(head) {
        if (head <= this.sweptBelow)
            return;
        this.sweptBelow = head;
        for (const [iteration, keys] of this.seenByIteration) {
            if (iteration >= head)
                continue;
            for (const k of keys)
                this.seen.delete(k);
            this.seenIndexed -= keys.length;
            this.seenByIteration.delete(iteration);
        }
    }
    reindexSeen() {
        this.seenByIteration.clear();
        for (const key of this.seen.keys()) {
            const iteration = Number(key.slice(key.lastIndexOf("/") + 1));
            const keys = this.seenByIteration.get(iteration);
            if (keys)
                keys.push(key);
            else
                this.seenByIteration.set(iteration, [key]);
        }
        this.seenIndexed = this.seen.size;
    }
    /** Dedupe keys held (for tests of the bound). */
    get seenSize() {
        return this.seen.size;
    }
    publishContribution(m) {
        return this.libp2p.services.pubsub.publish(this.topics.contribution, encodeContribution(m));
    }
    publishCommit(encoded) {
        return this.libp2p.services.pubsub.publish(this.topics.commit, encoded);
    }
    /** Announces that this node leaves; a failure is not worth waiting for. */
    async publishLeave(iteration) {
        await this.libp2p.services.pubsub
            .publish(this.topics.leave, encodeLeave({ runId: this.runId, iteration }))
            .catch(() => { });
    }
    /** Publishes `beat()` (when it has one) every `everyMs`, until stop. */
    startHeartbeat(everyMs, beat) {
        this.heartbeat = setInterval(() => {
            const b = beat();
            if (!b)
                return;
            this.libp2p.services.pubsub
                .publish(this.topics.heartbeat, encodeHeartbeat({ runId: this.runId, ...b }))
                .catch(() => { });
        }, everyMs);
    }
    stopHeartbeat() {
        if (this.heartbeat)
            clearInterval(this.heartbeat);
    }
}
//# sourceMappingURL=gossip.js.map