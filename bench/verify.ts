/**
 * `verify_overhead_ratio` (issue 11): the CPU a node spends per iteration on signatures and the
 * verified chain, over the CPU it spends training in that iteration (its own contribution's
 * forward passes and applying the commit). mnist-mlp-spsa-sized commits, real Ed25519 keys, the
 * real validators and caches the daemon runs (node/chain/signatures.ts). Gossip carries no
 * envelope signatures (StrictNoSign): each message's own signature is the only one. Target <= 0.05.
 */
import os from "node:os";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PrivateKey } from "@libp2p/interface";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { type Commit, proposerOrder, rankOf, type SignedContribution, ZERO_HASH } from "../node/chain/commit.js";
import { commitFromWire, signCommit } from "../node/chain/commit-wire.js";
import { SignatureVerifier, signerOf, type Signer } from "../node/chain/signatures.js";
import { peerIdBytes } from "../node/ground/index.js";
import { encodeContribution } from "../protocol/codec.js";
import { PRESETS } from "../protocol/presets.js";
import { algorithmOf, parseRunSpec } from "../protocol/run-spec.js";
import { contributionSignedBytes, ed25519KeyOfPeerId, ed25519PublicKey, verifyEd25519 } from "../protocol/signing.js";
import { type GossipContext, validateCommit, validateContribution } from "../protocol/validation.js";
import { compareAuthors } from "../training/algorithms/contribution.js";
import { loadMnist } from "../training/data/mnist.js";
import { useBackend } from "../training/engine.js";
import { checksum } from "../training/params.js";
import { initialReplica, openRun, type RunContext } from "../training/run-context.js";
import { median, type Section } from "./report.js";

/** CPU microseconds (user + system) `fn` takes, over `reps` runs, per run. */
function cpuUs(reps: number, fn: (rep: number) => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < reps; i++) fn(i);
  const d = process.cpuUsage(start);
  return (d.user + d.system) / reps;
}

interface Author {
  readonly id: string;
  readonly idBytes: Uint8Array;
  readonly joinedAt: number;
  readonly key: PrivateKey;
  readonly sign: Signer;
}

/** One gossip message as it arrives: its author and data (no envelope: StrictNoSign). */
interface Delivered {
  readonly author: Author;
  readonly data: Uint8Array;
}

interface Iteration {
  readonly t: number;
  /** Every author's contribution to this iteration (index 0 is ours). */
  readonly contributions: readonly Delivered[];
  readonly entries: readonly SignedContribution[];
  readonly commit: Delivered;
  /** What we signed for our own contribution. */
  readonly ours: { readonly message: Uint8Array; readonly signature: Uint8Array };
}

/** The per-iteration CPU of each step (µs), median over trials. */
interface Row {
  readonly n: number;
  readonly sign: number;
  readonly contributions: number;
  readonly commit: number;
  readonly contribute: number;
  readonly apply: number;
}

async function iterations(run: RunContext, authors: readonly Author[], payloads: readonly Uint8Array[], n: number, count: number): Promise<Iteration[]> {
  const eligible = authors.slice(0, n).map((a) => a.id);
  const out: Iteration[] = [];
  for (let t = 0; t < count; t++) {
    const contributions: Delivered[] = [];
    const entries: SignedContribution[] = [];
    const signed: { message: Uint8Array; signature: Uint8Array }[] = [];
    for (let i = 0; i < n; i++) {
      const a = authors[i];
      const claim = { runId: run.runId, iteration: t, joinedAt: a.joinedAt, payload: payloads[i], parentHash: ZERO_HASH };
      const message = contributionSignedBytes(claim);
      const signature = a.sign(message);
      signed.push({ message, signature });
      contributions.push({ author: a, data: encodeContribution({ ...claim, author: a.idBytes, signature }) });
      entries.push({ author: { id: a.id, joinedAt: a.joinedAt }, payload: payloads[i], signature });
    }
    entries.sort((a, b) => compareAuthors(a.author, b.author));
    const proposer = authors[0];
    const c: Commit = {
      runId: run.runId,
      iteration: t,
      prevHash: ZERO_HASH,
      entries,
      checksum: new Uint8Array(32),
      rank: rankOf(run.runId, t, eligible, proposer.id, eligible) ?? 0,
      proposer: proposer.id,
    };
    const commit = { author: proposer, data: signCommit(c, proposer.sign).encoded };
    out.push({ t, contributions, entries, commit, ours: signed[0] });
  }
  return out;
}

/** Median µs of one Ed25519 verification (key imported once), on contribution-sized messages. */
function ed25519VerifyUs(its: readonly Iteration[], run: RunContext, trials: number): number {
  const cases = its.flatMap((it) =>
    it.entries.map((e) => {
      const raw = ed25519KeyOfPeerId(peerIdBytes(e.author.id));
      if (!raw) throw new Error("not an Ed25519 author");
      const claim = { runId: run.runId, iteration: 0, joinedAt: e.author.joinedAt, payload: e.payload, parentHash: ZERO_HASH };
      return { key: ed25519PublicKey(raw), message: contributionSignedBytes(claim), signature: e.signature };
    }),
  );
  return median(Array.from({ length: trials }, () => cpuUs(cases.length, (i) => verifyEd25519(cases[i].key, cases[i].message, cases[i].signature))));
}

export async function verifySection(): Promise<Section> {
  await useBackend("wasm");
  const spec = parseRunSpec(PRESETS["mnist-mlp-spsa"]);
  const run = await openRun(spec, await loadMnist());
  const k = algorithmOf(spec, "spsa").perturbations;
  const sizes = [4, 32];
  const authors: Author[] = await Promise.all(
    Array.from({ length: Math.max(...sizes) }, async (_, i) => {
      const key = await generateKeyPair("Ed25519");
      const id = peerIdFromPrivateKey(key);
      return { id: id.toString(), idBytes: id.toMultihash().bytes, joinedAt: Date.UTC(2025, 0, 1) + i, key, sign: signerOf(key) };
    }),
  );
  const replica = initialReplica(run);
  // Real payloads: each author's contribution on the initial state (the same payload every
  // iteration; the iteration differs, so every iteration's signatures are new to the caches).
  const payloads = authors.map((a) => run.algorithm.contribute(replica, { id: a.id, joinedAt: a.joinedAt }));
  const trials = 5;
  const reps = 8;
  const rows: Row[] = [];
  for (const n of sizes) {
    const eligible = authors.slice(0, n).map((a) => a.id);
    // One trial's messages each, plus a warm-up's: made before any timing.
    const all = await iterations(run, authors, payloads, n, (trials + 1) * reps);
    const work = initialReplica(run);
    const me = { id: authors[0].id, joinedAt: authors[0].joinedAt };
    // The daemon's one verifier: keys imported once, each iteration's signatures new to it.
    const verifier = new SignatureVerifier();
    const ctx: GossipContext = {
      runId: run.runId,
      head: 0,
      window: 1 << 20,
      maxPayloadBytes: run.algorithm.maxPayloadBytes,
      payloadProblem: (p, it) => run.algorithm.payloadProblem(p, it),
      seen: () => "new",
      checkSignature: verifier.check,
    };
    const steps = { sign: [] as number[], contributions: [] as number[], commit: [] as number[], contribute: [] as number[], apply: [] as number[] };
    for (let trial = 0; trial <= trials; trial++) {
      const its = all.slice(trial * reps, (trial + 1) * reps);
      const took: Record<keyof typeof steps, number> = { sign: 0, contributions: 0, commit: 0, contribute: 0, apply: 0 };
      // Training CPU of one iteration at this node: its own contribution, then applying n entries.
      took.contribute = cpuUs(reps, () => run.algorithm.contribute(work, me));
      took.apply = cpuUs(reps, (r) => run.algorithm.apply(work.weights.slice(), 0, its[r].entries));
      // Signing our contribution (node:crypto, the key imported once).
      took.sign = cpuUs(reps, (r) => authors[0].sign(contributionSignedBytes({ runId: run.runId, iteration: r, parentHash: ZERO_HASH, joinedAt: me.joinedAt, payload: payloads[0] })));
      // The other n - 1 contributions as gossip delivers them, and the round's proposer order
      // (the rounds ask "is it my turn?" on every arrival; they keep the answer for the round).
      took.contributions = cpuUs(reps, (r) => {
        proposerOrder(run.runId, its[r].t, eligible);
        for (const c of its[r].contributions.slice(1)) validateContribution(c.data, ctx);
      });
      // Ours is in the cache since we signed it (the daemon's signer remembers what it signs).
      for (const it of its) verifier.remember(authors[0].idBytes, it.ours.message, it.ours.signature);
      // The commit: canonical form, proposer signature, entries (from the cache), order, join
      // times; its rank and the next round's order; the checksum of the result.
      const start = process.cpuUsage();
      for (const it of its) {
        const c = commitFromWire(validateCommit(it.commit.data, ctx));
        rankOf(run.runId, it.t, eligible, c.proposer, c.entries.map((e) => e.author.id));
        proposerOrder(run.runId, it.t + 1, c.entries.map((e) => e.author.id));
        checksum(work.weights);
      }
      const d = process.cpuUsage(start);
      took.commit = (d.user + d.system) / reps;
      // Trial 0 is the warm-up (code compiled, keys imported).
      if (trial > 0) for (const s of Object.keys(steps) as (keyof typeof steps)[]) steps[s].push(took[s]);
    }
    work.dispose();
    rows.push({
      n,
      sign: median(steps.sign),
      contributions: median(steps.contributions),
      commit: median(steps.commit),
      contribute: median(steps.contribute),
      apply: median(steps.apply),
    });
  }
  const verifyUs = ed25519VerifyUs(await iterations(run, authors, payloads, 32, 4), run, trials);
  replica.dispose();
  return report(rows, verifyUs, k, trials, reps);
}

function report(rows: readonly Row[], verifyUs: number, k: number, trials: number, reps: number): Section {
  const figures: Record<string, number> = {};
  const lines = rows.map((r) => {
    const chain = r.sign + r.contributions + r.commit;
    const train = r.contribute + r.apply;
    // The floor: one Ed25519 verification per entry (n - 1 contributions and the proposer's).
    const floor = (r.n * verifyUs) / train;
    const ms = (us: number) => us / 1000;
    figures[`verify_ms_per_iteration_${r.n}_entries`] = ms(chain);
    figures[`train_cpu_ms_per_iteration_${r.n}_entries`] = ms(train);
    figures[`verify_overhead_ratio_${r.n}_entries`] = chain / train;
    figures[`verify_overhead_floor_${r.n}_entries`] = floor;
    return `| ${r.n} | ${ms(chain).toFixed(2)} | ${ms(r.sign).toFixed(3)} + ${ms(r.contributions).toFixed(2)} + ${ms(r.commit).toFixed(2)} | ${ms(train).toFixed(1)} (${ms(r.contribute).toFixed(1)} + ${ms(r.apply).toFixed(1)}) | ${(chain / train).toFixed(3)} | ${floor.toFixed(3)} |`;
  });
  figures.verify_overhead_ratio = Math.max(...rows.map((r) => figures[`verify_overhead_ratio_${r.n}_entries`]));
  figures.ed25519_verify_us = verifyUs;
  return {
    id: "verify",
    title: "Cost of the verified chain (signatures, rank, checksum) vs training",
    command: "npm run bench -- --only verify",
    markdown: `mnist-mlp-spsa (${k} perturbations, one-byte gradients), wasm backend, real Ed25519 keys, the daemon's validators and caches (one SignatureVerifier: keys imported once, each contribution verified once, its entry in the commit a cache hit). Per iteration at one node with n authors. Signature and chain CPU = sign its own contribution + validate the other n - 1 as gossip delivers them and compute the round's proposer order (once: the rounds keep it) + the commit (canonical form, proposer signature, entries from the cache, order, join times, rank, next order, checksum of the result). Gossip carries no envelope signatures (gossipsub StrictNoSign): every message names its author and carries that author's own signature, which validation checks, so these are all the signatures a node checks per iteration; heartbeats, signed by their node the same way, come once a round timeout per peer, not per iteration. Training CPU = its own contribution (forward passes) + applying the n entries. Median of ${trials} trials of ${reps} iterations (load average ${os.loadavg()[0].toFixed(1)}: this machine's 2 cores are shared). \`verify_overhead_ratio\` is the worse of the two sizes; the floor is n Ed25519 verifications (${verifyUs.toFixed(0)} µs each here, node:crypto/OpenSSL, key already imported) over training CPU, a hot-loop figure: in a CPU profile of contribution validation, 82% is OpenSSL's verify, and the rest of the gap to the floor is verifications running colder between other work and this machine's load. What would go lower: batch Ed25519 verification (not in node:crypto), or more training per iteration (a larger model: the checks do not grow with it). Target: <= 0.05.

| entries | signature + chain CPU ms | sign + contributions + commit ms | training CPU ms (contribute + apply) | ratio | floor (n verifies) |
|---|---|---|---|---|---|
${lines.join("\n")}`,
    figures,
  };
}
