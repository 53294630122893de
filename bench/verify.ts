/**
 * `verify_overhead_ratio` (issue 11): the CPU a node spends per iteration on the verified chain
 * (checking every contribution's signature as it arrives on gossip, the commit's signatures,
 * form and rank, the checksum of the result, and signing its own contribution), over the CPU it
 * spends training in that iteration (its own contribution's forward passes and applying the
 * commit). mnist-mlp-spsa-sized commits, real Ed25519 keys, the real validators. Target <= 0.05.
 */
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { type Commit, proposerOrder, rankOf, type SignedContribution, ZERO_HASH } from "../node/chain/commit.js";
import { commitFromWire, signCommit } from "../node/chain/commit-wire.js";
import { SignatureVerifier, signerOf, type Signer } from "../node/chain/signatures.js";
import { encodeContribution } from "../protocol/codec.js";
import { PRESETS } from "../protocol/presets.js";
import { algorithmOf, parseRunSpec } from "../protocol/run-spec.js";
import { contributionSignedBytes } from "../protocol/signing.js";
import { type GossipContext, validateCommit, validateContribution } from "../protocol/validation.js";
import { compareAuthors } from "../training/algorithms/contribution.js";
import { loadMnist } from "../training/data/mnist.js";
import { useBackend } from "../training/engine.js";
import { checksum } from "../training/params.js";
import { initialReplica, openRun } from "../training/run-context.js";
import type { Section } from "./report.js";

/** CPU milliseconds (user + system) `fn` takes, over `reps` runs, per run. */
function cpuMs(reps: number, fn: (rep: number) => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < reps; i++) fn(i);
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000 / reps;
}

export async function verifySection(): Promise<Section> {
  await useBackend("wasm");
  const spec = parseRunSpec(PRESETS["mnist-mlp-spsa"]);
  const run = await openRun(spec, await loadMnist());
  const k = algorithmOf(spec, "spsa").perturbations;
  const sizes = [4, 32];
  const authors: { id: string; joinedAt: number; sign: Signer }[] = await Promise.all(
    Array.from({ length: Math.max(...sizes) }, async (_, i) => {
      const key = await generateKeyPair("Ed25519");
      return { id: peerIdFromPrivateKey(key).toString(), joinedAt: Date.UTC(2025, 0, 1) + i, sign: signerOf(key) };
    }),
  );
  const replica = initialReplica(run);
  const parentHash = ZERO_HASH;
  const reps = 20;
  // Real payloads: each author's contribution on the initial state (the same payload every rep;
  // the iteration differs, so every rep's signatures are new to the verifier's cache).
  const payloads = authors.map((a) => run.algorithm.contribute(replica, { id: a.id, joinedAt: a.joinedAt }));
  const signedAt = (i: number, t: number) => {
    const a = authors[i];
    const author = { id: a.id, joinedAt: a.joinedAt };
    const m = { runId: run.runId, iteration: t, joinedAt: a.joinedAt, payload: payloads[i], parentHash, signature: new Uint8Array(0) };
    const signature = a.sign(contributionSignedBytes(m));
    return { author, c: { author, payload: payloads[i], signature } as SignedContribution, data: encodeContribution({ ...m, signature }) };
  };
  const rows: { n: number; verify: number; gossip: number; commit: number; train: number; ratio: number }[] = [];
  const figures: Record<string, number> = {};
  for (const n of sizes) {
    const eligible = authors.slice(0, n).map((a) => a.id);
    // Every rep's messages, made before timing: n contributions and the commit of iteration t.
    const perRep = Array.from({ length: reps }, (_, t) => {
      const mine = Array.from({ length: n }, (_, i) => signedAt(i, t));
      const entries = mine.map((x) => x.c).sort((a, b) => compareAuthors(a.author, b.author));
      const proposer = authors[0];
      const commit: Commit = {
        runId: run.runId,
        iteration: t,
        prevHash: parentHash,
        entries,
        checksum: new Uint8Array(32),
        rank: rankOf(run.runId, t, eligible, proposer.id, eligible) ?? 0,
        proposer: proposer.id,
      };
      return { mine, entries, encoded: signCommit(commit, proposer.sign).encoded };
    });

    // Training CPU of one iteration at this node: its own contribution, then applying n entries.
    const work = initialReplica(run);
    const train = cpuMs(reps, (rep) => {
      run.algorithm.contribute(work, perRep[rep].mine[0].author);
      const w = work.weights.slice();
      run.algorithm.apply(w, 0, perRep[rep].entries);
    });
    // Chain CPU of one iteration, in steady state (one verifier: keys imported once; each rep's
    // signatures are new): sign our contribution; verify the n - 1 others as gossip delivers
    // them; the commit (canonical form, proposer signature, entries from the cache, order), its
    // rank and the next order, and the checksum of the result.
    const verifier = new SignatureVerifier();
    const ctx: GossipContext = {
      runId: run.runId,
      head: 0,
      window: 1024,
      maxPayloadBytes: run.algorithm.maxPayloadBytes,
      payloadProblem: (p, it) => run.algorithm.payloadProblem(p, it),
      seen: () => "new",
      checkSignature: verifier.check,
    };
    // Warm-up: keys imported, code paths compiled.
    for (const x of perRep[0].mine) validateContribution(x.data, x.author.id, ctx);
    const gossip = cpuMs(reps, (rep) => {
      const { mine } = perRep[rep];
      authors[0].sign(contributionSignedBytes({ runId: run.runId, iteration: rep, parentHash, joinedAt: authors[0].joinedAt, payload: payloads[0] }));
      for (const x of mine.slice(1)) validateContribution(x.data, x.author.id, ctx);
    });
    // Our own contribution reaches the cache as our peers' do (gossip verified theirs above).
    for (const { mine } of perRep) validateContribution(mine[0].data, mine[0].author.id, ctx);
    const commitCpu = cpuMs(reps, (rep) => {
      const m = validateCommit(perRep[rep].encoded, `relay-${rep}`, ctx);
      const c = commitFromWire(m);
      rankOf(run.runId, rep, eligible, c.proposer, c.entries.map((e) => e.author.id));
      proposerOrder(run.runId, rep + 1, c.entries.map((e) => e.author.id));
      checksum(work.weights);
    });
    work.dispose();
    const verify = gossip + commitCpu;
    const ratio = verify / train;
    rows.push({ n, verify, gossip, commit: commitCpu, train, ratio });
    figures[`verify_ms_per_iteration_${n}_entries`] = verify;
    figures[`train_cpu_ms_per_iteration_${n}_entries`] = train;
    figures[`verify_overhead_ratio_${n}_entries`] = ratio;
  }
  figures.verify_overhead_ratio = Math.max(...rows.map((r) => r.ratio));
  replica.dispose();
  return {
    id: "verify",
    title: "Cost of the verified chain (signatures, rank, checksum) vs training",
    command: "npm run bench -- --only verify",
    markdown: `mnist-mlp-spsa (${k} perturbations, one-byte gradients), wasm backend, real Ed25519 keys (node:crypto), the real validators. Per iteration at one node: chain CPU = sign its own contribution, verify the other n - 1 contributions as gossip delivers them (cold cache), verify the commit (canonical form, proposer signature, entries from the cache, timestamp order), compute ranks, hash the result; training CPU = its own contribution (forward passes) plus applying the n entries. \`verify_overhead_ratio\` is the worse of the two commit sizes. Target: <= 0.05.

| entries | chain CPU ms (gossip + commit) | training CPU ms | ratio |
|---|---|---|---|
${rows.map((r) => `| ${r.n} | ${r.verify.toFixed(2)} (${r.gossip.toFixed(2)} + ${r.commit.toFixed(2)}) | ${r.train.toFixed(2)} | ${r.ratio.toFixed(4)} |`).join("\n")}`,
    figures,
  };
}
