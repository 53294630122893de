/**
 * A crowd of free identities (finding 1 of the security review): one real libp2p peer holding
 * `size` in-memory Ed25519 keys. On every commit it hears, it signs one contribution per key for
 * the next iteration over that commit's hash, claiming the earliest join time validation accepts
 * (MIN_JOINED_AT) and a valid all-zero payload, and gossips them: what a Sybil crowd that wants
 * the earliest place in timestamp order does. It sends first for its keys that are members (authors
 * of the last PROPOSER_WINDOW commits it heard: their entries go in before any newcomer's), then
 * for the others best first by H (the newcomer slots' order), so a crowd that cannot sign all its
 * keys every round keeps the seats it won. Tests and the adversary benchmark share it.
 */
import { PROPOSER_WINDOW } from "../../node/chain/admission.js";
import { commitHash, decodeCommit, encodeContribution } from "../../protocol/codec.js";
import { sha256Hex, toHex } from "../../protocol/bytes.js";
import { contributionSignedBytes, MIN_JOINED_AT } from "../../protocol/signing.js";
import { stringifyTopic } from "../../protocol/topics.js";
import { type TestKey, testKeys } from "../helpers/chain-keys.js";
import { type Attacker, startAttacker } from "./attacker.js";
import type { Node } from "./node-process.js";

export interface SybilCrowd {
  readonly attacker: Attacker;
  readonly keys: readonly TestKey[];
  /** Peer ids of the crowd. */
  readonly ids: ReadonlySet<string>;
  /** Contributions published so far, and the commits they answered. */
  readonly counts: { sent: number; commits: number };
  stop(): Promise<void>;
}

/** Starts the crowd against `nodes` (a run of `payloadBytes`-byte payloads); it attacks until stopped. */
export async function startSybilCrowd(nodes: readonly Node[], runId: string, size: number, payloadBytes: number): Promise<SybilCrowd> {
  const commitTopic = stringifyTopic({ runId, kind: "commit" });
  const contributionTopic = stringifyTopic({ runId, kind: "contribution" });
  const attacker = await startAttacker(nodes, [commitTopic, contributionTopic], { relay: false });
  const keys = await testKeys(size, () => MIN_JOINED_AT);
  const counts = { sent: 0, commits: 0 };
  const answered = new Set<string>();
  /** Authors (hex of their peer id bytes) of the commits heard, by iteration (the last PROPOSER_WINDOW + 1). */
  const recent = new Map<number, readonly string[]>();
  let busy = false;
  let running = true;
  const payload = new Uint8Array(payloadBytes);
  attacker.node.services.pubsub.addEventListener("gossipsub:message", (e) => {
    const { msg } = e.detail;
    if (!running || busy || msg.topic !== commitTopic) return;
    let iteration: number;
    let parentHash: Uint8Array;
    try {
      const commit = decodeCommit(msg.data);
      iteration = commit.iteration + 1;
      parentHash = commitHash(msg.data);
      recent.set(commit.iteration, commit.entries.map((e) => toHex(e.author)));
      for (const i of recent.keys()) if (i < commit.iteration - PROPOSER_WINDOW) recent.delete(i);
    } catch {
      return;
    }
    if (answered.has(toHex(parentHash))) return;
    answered.add(toHex(parentHash));
    // One batch at a time: a crowd that cannot keep up answers the newest commit it hears next.
    busy = true;
    counts.commits++;
    void (async () => {
      // Members first, then best first: the newcomer slots go by H(runId, t, author).
      const members = new Set([...recent.values()].flat());
      const ranked = keys
        .map((k) => ({ k, member: members.has(toHex(k.bytes)), h: sha256Hex(`${runId}/${iteration}/${k.author.id}`) }))
        .sort((a, b) => (a.member !== b.member ? (a.member ? -1 : 1) : a.h < b.h ? -1 : 1));
      for (const { k } of ranked) {
        if (!running) break;
        const m = { runId, iteration, author: k.bytes, joinedAt: MIN_JOINED_AT, payload, parentHash, signature: new Uint8Array(0) };
        await attacker.publish(contributionTopic, encodeContribution({ ...m, signature: k.sign(contributionSignedBytes(m)) }));
        counts.sent++;
      }
      busy = false;
    })();
  });
  return {
    attacker,
    keys,
    ids: new Set(keys.map((k) => k.author.id)),
    counts,
    stop: async () => {
      running = false;
      await attacker.stop();
    },
  };
}
