/**
 * Finding 5's attack on real node processes, for its e2e test and its benchmark: a hostile peer
 * (a real libp2p node, test/e2e/attacker.ts) that
 *   - on each honest commit t, signs one set of entries for t + 1 by Sybil keys of its own and
 *     publishes 10 commits over them chained onto t that differ only in rank (one proposer
 *     signature each; at most 10 bursts a second);
 *   - publishes signed heartbeats claiming head + 5 every 100 ms, and serves every /commits
 *     request a static reply of pre-signed commits (before the fix every pull verified it all,
 *     once a round timeout).
 * The victims' CPU is read from /proc/<pid>/stat; their rate from wall time to `stopAt`.
 */
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { signerOf } from "../../node/chain/signatures.js";
import { peerIdBytes } from "../../node/ground/index.js";
import { type CommitEntry, commitHash, decodeCommit, encodeCommit, encodeCommitBody } from "../../protocol/codec.js";
import { readFileSync } from "node:fs";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { commitSignedBytes, contributionSignedBytes, peerIdString } from "../../protocol/signing.js";
import { encodeCommitsResponse } from "../../protocol/sync-codec.js";
import { PROTOCOLS, stringifyTopic } from "../../protocol/topics.js";
import { signedHeartbeat } from "../helpers/chain-keys.js";
import { frame } from "../helpers/wire-fuzzer.js";
import { serveRaw, startAttacker } from "./attacker.js";
import { type Line, type Node, startSwarm } from "./node-process.js";

/** CPU seconds (user + system) a process has used, from /proc (NaN where there is none). */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

export interface FloodOptions {
  readonly stopAt: number;
  readonly attack: boolean;
  /** Sybil entries per commit, and commits in the static /commits reply with entries each. */
  readonly entries?: number;
  readonly replyCommits?: number;
  readonly replyEntries?: number;
  /** Which parts of the attack run (default both): the rank variants, the heartbeat hints. */
  readonly variants?: boolean;
  readonly hints?: boolean;
}

export interface FloodOutcome {
  readonly seconds: number;
  /** Iterations per second from the first node's first applied commit to the end. */
  readonly rate: number;
  /** CPU seconds of each victim over the run. */
  readonly cpu: number[];
  readonly exits: (number | null)[];
  readonly checksums: string[];
  readonly iterations: number[];
  /** Rank variants published, heartbeats published, /commits requests the attacker got. */
  readonly variants: number;
  readonly heartbeats: number;
  readonly requests: number;
  readonly lines: Line[][];
  /** The connected hostile peer, and the key its commits are signed by. */
  readonly attackerId: string;
  readonly proposerId: string;
  readonly commits: ReturnType<Node["commits"]>[];
}

export async function verifyFlood(o: FloodOptions): Promise<FloodOutcome> {
  const spec = parseRunSpec({ ...PRESETS["tiny-spsa"], iterations: 100_000 });
  const runId = runIdOf(spec);
  const nodes = await startSwarm(2, ["--iterations", "100000", "--stop-at", String(o.stopAt), "--log-level", "debug"]);
  const cpu = nodes.map(() => 0);
  const sample = setInterval(() => nodes.forEach((n, i) => (cpu[i] = Math.max(cpu[i], cpuSeconds(n.child.pid) || 0))), 200);
  const t0 = performance.now();
  let variants = 0;
  let heartbeats = 0;
  let requests = 0;
  let attackerId = "";
  let proposerId = "";
  let stop = async () => {};
  if (o.attack) {
    const commitTopic = stringifyTopic({ runId, kind: "commit" });
    const heartbeatTopic = stringifyTopic({ runId, kind: "heartbeat" });
    const attacker = await startAttacker(nodes, [commitTopic, heartbeatTopic]);
    attackerId = attacker.id;
    const sybils = await Promise.all(
      Array.from({ length: o.entries ?? 64 }, async (_, i) => {
        const key = await generateKeyPair("Ed25519");
        const id = peerIdFromPrivateKey(key).toString();
        return { bytes: peerIdBytes(id), id, sign: signerOf(key), joinedAt: Date.now() - 1000 + i };
      }),
    );
    sybils.sort((a, b) => a.joinedAt - b.joinedAt || (a.id < b.id ? -1 : 1));
    const payload = new Uint8Array(spec.algorithm.kind === "spsa" ? spec.algorithm.perturbations : 8).fill(1);
    const entriesFor = (iteration: number, parentHash: Uint8Array, n = sybils.length): CommitEntry[] =>
      sybils.slice(0, n).map((s) => ({ author: s.bytes, joinedAt: s.joinedAt, payload, signature: s.sign(contributionSignedBytes({ runId, iteration, parentHash, joinedAt: s.joinedAt, payload })) }));
    // Commits are signed by a key of their own, which the equivocation evidence charges: the
    // connected peer only relays them, so it stays connected and goes on (identities are free).
    const proposerKey = await generateKeyPair("Ed25519");
    const proposer = { bytes: peerIdBytes(peerIdFromPrivateKey(proposerKey).toString()), sign: signerOf(proposerKey) };
    proposerId = peerIdString(proposer.bytes);
    const signed = (m: Parameters<typeof encodeCommitBody>[0]) => encodeCommit({ ...m, signature: proposer.sign(commitSignedBytes(encodeCommitBody(m))) });
    const base = (iteration: number, prevHash: Uint8Array, rank: number, entries: CommitEntry[]) => ({ runId, iteration, prevHash, checksum: new Uint8Array(32).fill(7), rank, proposer: proposer.bytes, entries });

    // The static reply: a linked run of pre-signed commits from iteration 0 of a chain of its own.
    const reply: Uint8Array[] = [];
    let prev: Uint8Array = new Uint8Array(32).fill(9);
    for (let t = 0; t < (o.replyCommits ?? 64); t++) {
      const c = signed(base(t, prev, 0, entriesFor(t, prev, o.replyEntries ?? 64)));
      reply.push(c);
      prev = commitHash(c);
    }
    const replyBytes = frame(encodeCommitsResponse({ commits: reply }));
    await serveRaw(attacker, PROTOCOLS.commits, () => replyBytes, () => requests++);

    let head = 0;
    let lastBurst = 0;
    // On each honest commit t: 10 commits for t + 1 chained onto it that differ only in rank, over
    // one set of entries signed for it (at most one burst per 100 ms: 10 a second at most). They
    // reach every check short of the rank (which their proposer does not hold); before the fix
    // each one verified every entry, now the 4th and later for one (proposer, iteration) verify nothing.
    attacker.node.services.pubsub.addEventListener("gossipsub:message", (e) => {
      if (e.detail.msg.topic !== commitTopic) return;
      let c;
      try {
        c = decodeCommit(e.detail.msg.data);
      } catch {
        return;
      }
      if (o.variants === false || peerIdString(c.proposer) === proposerId || c.iteration + 1 <= head) return;
      head = c.iteration + 1;
      const now = performance.now();
      if (now - lastBurst < 100) return;
      lastBurst = now;
      const prevHash = commitHash(e.detail.msg.data);
      const entries = entriesFor(head, prevHash);
      for (let r = 0; r < 10; r++) {
        void attacker.publish(commitTopic, signed(base(head, prevHash, 1000 + r, entries)));
        variants++;
      }
    });
    const beats = setInterval(() => {
      if (o.hints === false) return;
      void attacker.publish(heartbeatTopic, signedHeartbeat(attacker, { runId, iteration: head + 5, checksum: new Uint8Array(32).fill(3), joinedAt: Date.now() - 1000 }));
      heartbeats++;
    }, 100);
    stop = async () => {
      clearInterval(beats);
      await attacker.stop();
    };
  }
  try {
    const exits = await Promise.all(nodes.map((n) => n.exit));
    const seconds = (performance.now() - t0) / 1000;
    const results = nodes.map((n) => n.result());
    const applied = nodes[0].lines.filter((l) => l.msg === "applied");
    const first = applied[0] as Line | undefined;
    const last = applied.at(-1);
    const span = first && last ? (Number(last.time) - Number(first.time)) / 1000 : seconds;
    return {
      seconds,
      rate: applied.length / Math.max(span, 1e-3),
      cpu,
      exits: exits.map((e) => e.code),
      checksums: results.map((r) => r.checksum),
      iterations: results.map((r) => r.iteration),
      variants,
      heartbeats,
      requests,
      lines: nodes.map((n) => n.lines),
      attackerId,
      proposerId,
      commits: nodes.map((n) => {
        try {
          return n.commits();
        } catch {
          return []; // no commit log: the node never applied one
        }
      }),
    };
  } finally {
    clearInterval(sample);
    await stop();
  }
}
