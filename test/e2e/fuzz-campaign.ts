/**
 * A fuzzing campaign against real node processes (the e2e fuzz test and the `fuzz` benchmark):
 * a pool of hostile identities (attacker.ts) publishing WireFuzzer cases on every gossip topic,
 * and sending hostile request frames on every sync protocol, while answering the honest nodes'
 * own requests with hostile replies.
 *
 * Identities are free (the threat model), and gossipsub graylists an identity a heartbeat after
 * its first rejects, dropping what it sends next before validation: so each identity sends one
 * burst and is replaced, which keeps the cases reaching the validators. What reached them is
 * read from the nodes' own counters (`seedswarm_gossip_validated_total`,
 * `seedswarm_sync_requests_total` on --http), not assumed.
 */
import { peerIdFromString } from "@libp2p/peer-id";
import { decodeCommit, decodeHeartbeat } from "../../protocol/codec.js";
import { PROTOCOL_NAMES, PROTOCOLS, parseTopic, stringifyTopic, TOPIC_KINDS, type ProtocolName, type TopicKind } from "../../protocol/topics.js";
import { type FuzzIdentity, WireFuzzer } from "../helpers/wire-fuzzer.js";
import { type Attacker, type RawOutcome, rawRequest, serveRaw, startAttacker } from "./attacker.js";
import type { Node } from "./node-process.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface CampaignOptions {
  readonly seed: number;
  readonly runId: string;
  /** Gossip messages per topic kind. */
  readonly perTopic: number;
  /** Requests per sync protocol. */
  readonly perProtocol: number;
  /** Messages one identity publishes before it is replaced (gossipsub graylists it soon after). */
  readonly burst?: number;
  /** Requests in flight at once. */
  readonly concurrency?: number;
  /** Only these gossip topic kinds and sync protocols (all by default): to attribute a cost to one. */
  readonly kinds?: readonly TopicKind[];
  readonly protocols?: readonly ProtocolName[];
  /** Called now and then (progress, memory sampling). */
  readonly tick?: () => void;
}

export interface CampaignResult {
  readonly seed: number;
  readonly published: Record<TopicKind, number>;
  readonly requests: Record<ProtocolName, Record<RawOutcome, number>>;
  /** Honest nodes' requests to the attackers, answered with hostile replies. */
  readonly hostileReplies: number;
  readonly identities: number;
  /** Seconds each protocol's requests took. */
  readonly protocolSeconds: Partial<Record<ProtocolName, number>>;
  /** Attacker peer id strings, for checking that none entered the chain. */
  readonly ids: ReadonlySet<string>;
  readonly seconds: number;
}

/** The counters a node exposes on /metrics that the campaign reads. */
export interface NodeCounts {
  /** kind -> verdict -> count, over gossip messages that reached validation. */
  readonly gossip: Record<string, Record<string, number>>;
  /** protocol id -> outcome -> count. */
  readonly sync: Record<string, Record<string, number>>;
  /** Resident set size, from the process's own metric. */
  readonly rssBytes: number;
  /** V8 heap in use and external (Buffer) memory, from the process's own metrics. */
  readonly heapUsedBytes: number;
  readonly externalBytes: number;
}

/** Reads a node's counters from its --http endpoint. */
export async function nodeCounts(url: string): Promise<NodeCounts> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const gossip: Record<string, Record<string, number>> = {};
  const sync: Record<string, Record<string, number>> = {};
  let rssBytes = 0;
  let heapUsedBytes = 0;
  let externalBytes = 0;
  for (const line of text.split("\n")) {
    const g = /^seedswarm_gossip_validated_total\{kind="(\w+)",verdict="(\w+)",code="(\w+)"\} (\d+)/.exec(line);
    if (g) (gossip[g[1]] ??= {})[g[2]] = ((gossip[g[1]] ??= {})[g[2]] ?? 0) + Number(g[4]);
    const s = /^seedswarm_sync_requests_total\{protocol="([^"]+)",outcome="(\w+)"\} (\d+)/.exec(line);
    if (s) (sync[s[1]] ??= {})[s[2]] = Number(s[3]);
    const r = /^process_resident_memory_bytes (\d+)/.exec(line);
    if (r) rssBytes = Number(r[1]);
    const h = /^nodejs_heap_size_used_bytes (\d+)/.exec(line);
    if (h) heapUsedBytes = Number(h[1]);
    const x = /^nodejs_external_memory_bytes (\d+)/.exec(line);
    if (x) externalBytes = Number(x[1]);
  }
  return { gossip, sync, rssBytes, heapUsedBytes, externalBytes };
}

/** Gossip messages of a kind that reached validation and were not accepted. */
export const notAccepted = (c: NodeCounts, kind: string): number => (c.gossip[kind]?.reject ?? 0) + (c.gossip[kind]?.ignore ?? 0);
/** Sync requests of a protocol that reached the handler (answered or failed). */
export const syncSeen = (c: NodeCounts, protocol: ProtocolName): number =>
  (c.sync[PROTOCOLS[protocol]]?.answered ?? 0) + (c.sync[PROTOCOLS[protocol]]?.failed ?? 0);

export async function runFuzzCampaign(nodes: readonly Node[], opts: CampaignOptions): Promise<CampaignResult> {
  const start = performance.now();
  const burst = opts.burst ?? 40;
  const topics = Object.fromEntries(TOPIC_KINDS.map((kind) => [kind, stringifyTopic({ runId: opts.runId, kind })])) as Record<TopicKind, string>;
  const topicList = Object.values(topics);
  let head = 0;
  const fuzzer = new WireFuzzer({ seed: opts.seed, runId: opts.runId, head: () => head });
  const ids = new Set<string>();
  let hostileReplies = 0;

  /** A fresh identity: dialled in, subscribed, learning from what it hears, answering requests with hostile replies. */
  const fresh = async (): Promise<Attacker> => {
    const a = await startAttacker(nodes, topicList, { relay: false });
    ids.add(a.id);
    const who: FuzzIdentity = { sign: a.sign, bytes: a.bytes };
    a.node.services.pubsub.addEventListener("gossipsub:message", (e) => {
      // Gossip names no publisher (no envelope signature): learn from what honest nodes relay.
      const from = e.detail.propagationSource.toString();
      const topic = parseTopic(e.detail.msg.topic);
      if (!topic || ids.has(from)) return;
      fuzzer.learn(topic.kind, e.detail.msg.data);
      try {
        if (topic.kind === "heartbeat") head = Math.max(head, decodeHeartbeat(e.detail.msg.data).iteration);
        if (topic.kind === "commit") head = Math.max(head, decodeCommit(e.detail.msg.data).iteration + 1);
      } catch {
        // honest bytes decode; nothing to learn otherwise
      }
    });
    for (const p of PROTOCOL_NAMES)
      await serveRaw(a, PROTOCOLS[p], () => fuzzer.reply(p, who).data, () => hostileReplies++);
    return a;
  };

  // A listener that stays for the whole campaign: it learns the honest messages, sends the
  // requests and answers the nodes' requests. Wait until it has heard some honest traffic.
  // Retried: on a loaded machine one dial of the three may time out.
  const startListener = async (): Promise<Attacker> => {
    for (let tries = 1; ; tries++) {
      try {
        return await fresh();
      } catch (err) {
        if (tries >= 3) throw err;
      }
    }
  };
  const listener = await startListener();
  for (let i = 0; i < 100 && (fuzzer.learned("commit") === 0 || fuzzer.learned("contribution") === 0); i++) await sleep(100);

  const published = Object.fromEntries(TOPIC_KINDS.map((k) => [k, 0])) as Record<TopicKind, number>;
  // Identities are made a few ahead, in parallel: each takes a few hundred ms to dial and subscribe.
  // One that fails to start (a dial timing out on a loaded machine) is skipped, never unhandled.
  const ahead: Promise<Attacker | null>[] = [];
  let failedStarts = 0;
  const next = (): Promise<Attacker | null> => {
    while (ahead.length < 3)
      ahead.push(
        fresh().catch(() => {
          failedStarts++;
          return null;
        }),
      );
    return ahead.shift() as Promise<Attacker | null>;
  };
  let identities = 1;
  const retired: Promise<void>[] = [];
  const gossip = (async () => {
    for (const kind of opts.kinds ?? TOPIC_KINDS) {
      while (published[kind] < opts.perTopic) {
        const a = await next();
        if (!a) {
          // A loaded machine times some dials out: give up only when most identities fail.
          if (failedStarts > 20 && failedStarts > identities) throw new Error(`${failedStarts} hostile identities failed to start (${identities} started)`);
          continue;
        }
        identities++;
        const who = { sign: a.sign, bytes: a.bytes };
        for (let i = 0; i < burst && published[kind] < opts.perTopic; i++) {
          await a.publish(topics[kind], fuzzer.gossip(kind, who).data);
          published[kind]++;
        }
        opts.tick?.();
        // Leaves once its burst is validated: the nodes must also forget the peers that left.
        retired.push(sleep(500).then(() => a.stop()));
      }
    }
  })();

  const requests = Object.fromEntries(
    PROTOCOL_NAMES.map((p) => [p, { answered: 0, closed: 0, timeout: 0 } as Record<RawOutcome, number>]),
  ) as Record<ProtocolName, Record<RawOutcome, number>>;
  const peers = await Promise.all(nodes.map(async (n) => peerIdFromString(String((await n.waitFor((l) => l.msg === "node started")).peerId))));
  const protocolSeconds: Partial<Record<ProtocolName, number>> = {};
  const sync = (async () => {
    const concurrency = opts.concurrency ?? 8;
    for (const p of opts.protocols ?? PROTOCOL_NAMES) {
      let sent = 0;
      const worker = async () => {
        while (sent < opts.perProtocol) {
          const i = sent++;
          const outcome = await rawRequest(listener, peers[i % peers.length], PROTOCOLS[p], fuzzer.request(p).data, 1500);
          requests[p][outcome]++;
          if (i % 200 === 0) opts.tick?.();
        }
      };
      const t = performance.now();
      await Promise.all(Array.from({ length: concurrency }, worker));
      protocolSeconds[p] = (performance.now() - t) / 1000;
    }
  })();
  // Both finish (or fail) before the identities are stopped, so a failure leaves nothing running.
  const done = await Promise.allSettled([gossip, sync]);
  await Promise.all(retired);
  for (const a of await Promise.all(ahead)) await a?.stop();
  await listener.stop();
  for (const d of done) if (d.status === "rejected") throw d.reason;
  return {
    protocolSeconds,
    seed: opts.seed,
    published,
    requests,
    hostileReplies,
    identities,
    ids,
    seconds: (performance.now() - start) / 1000,
  };
}

/**
 * Waits (up to `timeoutMs`) until the nodes agree at the latest iteration all of them applied,
 * and says whether they did. Two honest proposers can fork the chain for an iteration under load
 * (a late primary against its fallback), and the fork choice settles it within a round or two:
 * stopping the nodes in the middle of that measures the stop, not the attack. A disagreement that
 * outlasts the wait is left for the caller's comparison to count.
 */
export async function converged(nodes: readonly Node[], timeoutMs = 30_000): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const sums = nodes.map((n) => n.checksums());
    const common = Math.min(...sums.map((s) => Math.max(-1, ...s.keys())));
    const at = sums.map((s) => s.get(common));
    if (common >= 0 && at.every((x) => x !== undefined && x === at[0])) return true;
    if (performance.now() > until) return false;
    await sleep(250);
  }
}

/** Fork switches the nodes logged (one step, or deeper from a snapshot), per node. */
export const forkSwitches = (n: Node): number =>
  n.lines.filter((l) => l.msg === "switching to a better commit" || l.msg === "switching to a better fork").length;
