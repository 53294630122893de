/**
 * Finding 4: what a flood of validly shaped contributions and future commits from free identities
 * costs a node's round inbox (node/chain/round-inbox.ts), in process. Contributions come from a
 * fresh signer each, spread over the iterations the window allows; commits are 1,024-entry
 * commits (16-byte payloads) from 256 proposers, 16 each, over the window. Figures: microseconds
 * per add after 20,000 adds, held counts and bytes (the inbox's own accounting, and the V8 heap
 * it grew), all against the budgets of ROUND_CAPS.
 *
 * SEEDSWARM_BENCH_INBOX_ADDS changes the number of contribution adds (default 100,000).
 */
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import type { Commit, SignedContribution } from "../node/chain/commit.js";
import { signCommit } from "../node/chain/commit-wire.js";
import { ROUND_CAPS, RoundInbox } from "../node/chain/round-inbox.js";
import { signerOf } from "../node/chain/signatures.js";
import { FUTURE_ITERATIONS } from "../protocol/limits.js";

const MiB = 1024 * 1024;
const parent = new Uint8Array(32).fill(1);
const heap = () => {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  // Typed arrays' bytes live outside the V8 heap.
  return m.heapUsed + m.arrayBuffers;
};

/** Microseconds per add for `n` adds from fresh signers. */
function timedAdds(inbox: RoundInbox, from: number, n: number, head: number): number {
  const t0 = performance.now();
  for (let i = from; i < from + n; i++) {
    const c: SignedContribution = { author: { id: `12D3KooSybil${i.toString().padStart(40, "0")}`, joinedAt: 1 }, payload: new Uint8Array(16).fill(i & 0xff), signature: new Uint8Array(64) };
    inbox.addContribution(c, head + 1 + (i % FUTURE_ITERATIONS), parent, head);
  }
  return ((performance.now() - t0) * 1000) / n;
}

export async function inboxFigures(): Promise<{ figures: Record<string, number>; markdown: string }> {
  const adds = Number(process.env.SEEDSWARM_BENCH_INBOX_ADDS ?? 100_000);
  const head = 1000;
  const heap0 = heap();
  const inbox = new RoundInbox(() => {});
  timedAdds(inbox, 0, 20_000, head);
  const at20k = timedAdds(inbox, 20_000, 2_000, head);
  const heldAt20k = inbox.held().contributions;
  const t0 = performance.now();
  timedAdds(inbox, 22_000, Math.max(0, adds - 22_000), head);
  const allS = (performance.now() - t0) / 1000;
  const held = inbox.held();
  const contributionHeap = (heap() - heap0) / MiB;

  // Future commits: 1,024 entries each, re-signed by 256 proposers at 16 ranks each.
  const entryKey = await generateKeyPair("Ed25519");
  const entryId = peerIdFromPrivateKey(entryKey).toString();
  const entries = Array.from({ length: 1024 }, (_, i) => ({ author: { id: entryId, joinedAt: i + 1 }, payload: new Uint8Array(16), signature: new Uint8Array(64).fill(i & 0xff) }));
  const heap1 = heap();
  const commits = new RoundInbox(() => {});
  let offered = 0;
  let encodedBytes = 0;
  for (let p = 0; p < 256; p++) {
    const key = await generateKeyPair("Ed25519");
    const proposer = peerIdFromPrivateKey(key).toString();
    const sign = signerOf(key);
    for (let r = 0; r < 16; r++) {
      const c: Commit = { runId: "a".repeat(64), iteration: head + 1 + ((p + r) % FUTURE_ITERATIONS), prevHash: parent, checksum: new Uint8Array(32), rank: r, proposer, entries };
      const signed = signCommit(c, sign);
      encodedBytes = signed.encoded.byteLength;
      commits.addPendingCommit(signed, head);
      offered++;
    }
  }
  const heldCommits = commits.held();
  const commitHeap = (heap() - heap1) / MiB;
  const figures = {
    inbox_add_us_at_20k_held: at20k,
    inbox_held_at_20k: heldAt20k,
    inbox_adds: adds,
    inbox_adds_s: allS,
    inbox_held_contributions: held.contributions,
    inbox_held_contribution_mib: held.contributionBytes / MiB,
    inbox_contribution_heap_mib: contributionHeap,
    inbox_commits_offered: offered,
    inbox_held_commits: heldCommits.commits,
    inbox_held_commit_mib: heldCommits.commitBytes / MiB,
    inbox_commit_heap_mib: commitHeap,
  };
  const markdown = `A round inbox (\`node/chain/round-inbox.ts\`) in process, flooded as finding 4 describes: ${adds.toLocaleString("en")} contributions (16-byte payloads), each from a fresh signer, spread over the ${FUTURE_ITERATIONS} iterations past the head the window allows; then ${offered.toLocaleString("en")} future commits of 1,024 entries (${(encodedBytes / 1024).toFixed(0)} KiB encoded each) from 256 proposers, 16 each. Held: the inbox's own accounting (payload or encoded bytes plus a fixed cost each); heap: the growth of V8's heapUsed plus array buffers${(globalThis as { gc?: unknown }).gc ? " after a GC" : " (no --expose-gc: an upper bound)"}.

| figure | value | bound |
|---|---|---|
| per add after 20,000 adds (${heldAt20k.toLocaleString("en")} held) | ${at20k.toFixed(1)} us | target <= 50 us (the scan it replaces: ~5,000 us) |
| all ${adds.toLocaleString("en")} adds | ${allS.toFixed(2)} s | |
| contributions held | ${held.contributions.toLocaleString("en")} (${(held.contributionBytes / MiB).toFixed(1)} MiB counted; heap +${contributionHeap.toFixed(1)} MiB) | ${ROUND_CAPS.contributions.toLocaleString("en")}, ${ROUND_CAPS.contributionBytes / MiB} MiB |
| future commits held | ${heldCommits.commits} of ${offered.toLocaleString("en")} (${(heldCommits.commitBytes / MiB).toFixed(1)} MiB counted; heap +${commitHeap.toFixed(1)} MiB) | ${ROUND_CAPS.pendingCommits}, ${ROUND_CAPS.pendingCommitBytes / MiB} MiB |`;
  return { figures, markdown };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { figures, markdown } = await inboxFigures();
  process.stdout.write(`${markdown}\n\n${JSON.stringify(figures, null, 2)}\n`);
}
