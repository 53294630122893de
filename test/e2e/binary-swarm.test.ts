/**
 * Binary Learning over real processes: `seedswarm swarm --preset tiny-binary` (stages, identical
 * packed checkpoints, loss falls), and a hostile peer sending bad sparse payloads on the wire.
 */
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { multiaddr } from "@multiformats/multiaddr";
import * as tf from "@tensorflow/tfjs";
import { loadCheckpoint } from "../../node/store/checkpoint.js";
import { loadOrCreateIdentity } from "../../node/store/identity.js";
import { createSwarmNode, defaultNetworkOptions } from "../../node/network/libp2p.js";
import { createLogger } from "../../node/ground/index.js";
import { type Signer, signerOf } from "../../node/chain/signatures.js";
import { encodeContribution } from "../../protocol/codec.js";
import * as pb from "../../protocol/messages.js";
import { runIdBytes } from "../../protocol/run-id.js";
import { contributionSignedBytes } from "../../protocol/signing.js";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { encodeSparsePayload } from "../../protocol/sparse-payload.js";
import { stringifyTopic } from "../../protocol/topics.js";
import { useBackend } from "../../training/engine.js";
import { evaluate } from "../../training/evaluate.js";
import { toTensors } from "../../training/params.js";
import { initialReplica, openRun } from "../../training/run-context.js";
import { runCli } from "./cli-process.js";
import { cleanup, type Line, Node, startSwarm, tempDir } from "./node-process.js";

after(cleanup);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const spec = parseRunSpec(PRESETS["tiny-binary"]);

/**
 * A contribution message signed by the attacker over the start of the chain's parent (its
 * payload is what is checked: payload checks run before the signature). One longer than the wire
 * allows is built with the raw protobuf encoder, which has no limits.
 */
function contribution(by: { sign: Signer; bytes: Uint8Array }, runId: string, iteration: number, payload: Uint8Array): Uint8Array {
  const { sign } = by;
  const m = { runId, iteration, author: by.bytes, joinedAt: 1, payload, parentHash: new Uint8Array(32), signature: new Uint8Array(0) };
  const signature = sign(contributionSignedBytes(m));
  if (payload.length <= 4096) return encodeContribution({ ...m, signature });
  return pb.Contribution.encode({
    runId: runIdBytes(runId) as Uint8Array<ArrayBuffer>,
    iteration: BigInt(iteration),
    joinedAt: 1n,
    payload: payload as Uint8Array<ArrayBuffer>,
    parentHash: m.parentHash,
    signature: signature as Uint8Array<ArrayBuffer>,
    staleness: 0,
    author: by.bytes as Uint8Array<ArrayBuffer>,
  });
}

function jsonLines(path: string): Line[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Line];
      } catch {
        return [];
      }
    });
}

describe("binary swarm of real node processes", () => {
  it("seedswarm swarm --nodes 3 --preset tiny-binary: identical packed checkpoints, loss falls, one stage switch", async () => {
    const dir = await tempDir();
    const res = await runCli(["swarm", "--nodes", "3", "--preset", "tiny-binary", "--data-dir", dir, "--backend", "wasm"]);
    assert.equal(res.code, 0, res.stderr);
    const base = join(dir, "swarm");
    const logs = [0, 1, 2].map((i) => jsonLines(join(base, `node-${i}.log`)));
    // The launcher starts each node with its garbage collection on its own thread (heap-policy.ts).
    for (const lines of logs) assert.ok(lines.length > 0 && !lines.some((l) => String(l.msg).startsWith("garbage collection runs on background threads")));
    for (const lines of logs) {
      const switches = lines.filter((l) => l.msg === "stage switched");
      assert.deepEqual(
        switches.map((l) => [l.iteration, l.stage]),
        [[100, 1]],
        "each node logs the switch to stage 1 at iteration 100",
      );
    }
    const runId = runIdOf(spec);
    const cps = await Promise.all(
      [0, 1, 2].map((i) => {
        const runs = join(base, `node-${i}`, "runs");
        return loadCheckpoint(join(runs, readdirSync(runs)[0], "checkpoint.ssck"));
      }),
    );
    for (const cp of cps) {
      assert.equal(cp.runId, runId);
      assert.equal(cp.iteration, 200);
      assert.ok(cp.weights instanceof Uint32Array, "the state is packed words");
      assert.deepEqual(Buffer.from(cp.weights.buffer), Buffer.from(cps[0].weights.buffer), "byte-identical state");
    }
    await useBackend("wasm");
    const run = await openRun(spec);
    const test = (w: Uint32Array | Float32Array) => {
      const tensors = toTensors(run.model.layout, w);
      const ev = evaluate(run.model, tensors, run.dataset.test);
      tf.dispose(tensors);
      return ev;
    };
    const start = test(initialReplica(run).weights);
    const end = test(cps[0].weights);
    assert.ok(end.loss < 0.5 * start.loss, `test loss ${start.loss} -> ${end.loss}`);
    assert.ok(end.accuracy > 0.9, `test accuracy ${end.accuracy}`);
  });

  it("a 4th node joins in stage 2 and ends identical; a node SIGKILLed mid-stage restarts and ends identical", async () => {
    const long = parseRunSpec({
      ...PRESETS["tiny-binary"],
      iterations: 100_000,
      algorithm: { ...PRESETS["tiny-binary"].algorithm, stages: [100, 99_900] },
    });
    const specFile = join(await tempDir(), "spec.json");
    writeFileSync(specFile, JSON.stringify(long));
    // tiny-binary rounds take milliseconds: a long enough run for a joiner to start and catch up.
    const args = ["--spec", specFile, "--stop-at", "800"];
    const [a, b, victim] = await startSwarm(3, args);
    await a.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 120, 60_000, "iteration 120");
    const joiner = new Node(await tempDir(), [...args, "--bootstrap", await a.address()]);
    const caught = await joiner.waitFor((l) => l.msg === "caught up", 60_000, "joiner caught up");
    assert.ok((caught.iteration ?? 0) > 100, `joined in stage 2 (at ${caught.iteration})`);
    const killAt = (caught.iteration ?? 0) + 50;
    await a.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= killAt, 60_000, `iteration ${killAt}`);
    victim.child.kill("SIGKILL");
    await a.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= killAt + 30, 60_000, "the others go on");
    const again = new Node(victim.dataDir, [...args, "--bootstrap", await a.address()]);
    const exits = await Promise.all([a.exit, b.exit, joiner.exit, again.exit]);
    for (const e of exits) assert.equal(e.code, 0);
    const results = [a, b, joiner, again].map((n) => n.result());
    assert.deepEqual(new Set(results.map((r) => r.iteration)), new Set([800]));
    const notes = [a, b, joiner, again].map(
      (n, i) =>
        `${["a", "b", "joiner", "restarted"][i]} ${n.result().checksum.slice(0, 8)}: ${n.lines
          .filter((l) => /caught up|resumed|starting the chain|diverged|repaired|fork|behind|snapshot/.test(String(l.msg)))
          .map((l) => `${l.msg}@${l.iteration}`)
          .join(", ")}`,
    );
    assert.equal(new Set(results.map((r) => r.checksum)).size, 1, `all four end bit-identical:\n${notes.join("\n")}`);
    // The joiner got stage 1's frozen bits from the snapshot: its stage-1 layer equals the others'.
    const runs = join(joiner.dataDir, "runs");
    const cp = await loadCheckpoint(join(runs, readdirSync(runs)[0], "checkpoint.ssck"));
    assert.equal((cp.weights as Uint32Array)[0], 1, "the joiner's state is in stage 2");
  });

  it("a bad binary run spec: the CLI names the field and exits 2", async () => {
    const dir = await tempDir();
    const cases: [string, object][] = [
      ["model.weights", { model: { ...PRESETS["tiny-binary"].model, weights: "quaternary" } }],
      ["algorithm.stages", { algorithm: { ...PRESETS["tiny-binary"].algorithm, stages: [100, 50] } }],
    ];
    for (const [field, over] of cases) {
      const file = join(dir, `${field}.json`);
      writeFileSync(file, JSON.stringify({ ...PRESETS["tiny-binary"], ...over }));
      const r = await runCli(["train", "--spec", file, "--data-dir", dir]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`✖ run spec: ${field.replace(".", "\\.")} .*\\[RUNSPEC_INVALID\\]`));
    }
  });

  it("a hostile peer's bad sparse payloads are each rejected; all-zero votes are accepted and change nothing", async () => {
    // A long run (stage 1 ends at 100, stage 2 runs on) stopped at 150: payloads for both stages.
    const long = parseRunSpec({
      ...PRESETS["tiny-binary"],
      iterations: 100_000,
      algorithm: { ...PRESETS["tiny-binary"].algorithm, stages: [100, 99_900] },
    });
    const specFile = join(await tempDir(), "spec.json");
    writeFileSync(specFile, JSON.stringify(long));
    const nodes = await startSwarm(2, ["--spec", specFile, "--stop-at", "150", "--log-level", "debug"]);
    const runId = runIdOf(long);
    const topic = stringifyTopic({ runId, kind: "contribution" });
    const { privateKey, peerId } = await loadOrCreateIdentity(await tempDir());
    const by = { sign: signerOf(privateKey), bytes: peerId.toMultihash().bytes };
    const attacker = await createSwarmNode(
      { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false, bootstrap: [], gossipHeartbeatMs: 100 },
      privateKey,
      createLogger({ level: "silent" }),
    );
    try {
      for (const n of nodes) await attacker.dial(multiaddr(await n.address()));
      attacker.services.pubsub.subscribe(topic);
      await nodes[0].waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 10, 30_000, "iteration 10");
      for (let i = 0; i < 50 && attacker.services.pubsub.getSubscribers(topic).length < 2; i++) await sleep(100);
      const head = Math.max(...nodes[0].checksums().keys());
      const at = head + 30; // inside the window, still stage 0 ([0, 640) of 1792 moves)
      const header = (count: number[]) => Uint8Array.from([0, 0, 0x80, 0x3f, ...count]); // scale 1.0
      const bad: [string, Uint8Array, number, RegExp][] = [
        ["over 4096 bytes", new Uint8Array(4097).fill(1), at, /at most 4096 bytes/],
        ["over maxEntries", encodeSparsePayload(Array.from({ length: 257 }, (_, k) => k), new Array(257).fill(-1)), at + 1, /257 entries, the limit is 256/],
        ["truncated varint", Uint8Array.from([...header([2]), 5, 1, 0x80, 0x80]), at + 2, /truncated varint/],
        ["indices not increasing", Uint8Array.from([...header([2]), 5, 1, 0, 1]), at + 3, /does not increase/],
        ["index outside every stage", encodeSparsePayload([1792], [-1]), at + 4, /index 1792 outside 0\.\.639/],
        ["index of stage 2 in stage 1", encodeSparsePayload([700], [-1]), at + 5, /index 700 outside 0\.\.639/],
        ["index of the frozen stage 1", encodeSparsePayload([5], [-1]), 100 + 5, /index 5 outside 640\.\.1791/],
        ["byte -128", Uint8Array.from([...header([1]), 5, 0x80]), at + 6, /invalid byte -128/],
        ["count/length mismatch", Uint8Array.from([...header([3]), 5, 1, 1, 1]), at + 7, /count 3 needs at least 6 bytes/],
        ["trailing bytes", Uint8Array.from([...header([1]), 5, 1, 9]), at + 8, /bytes after the 1 entries/],
      ];
      for (const [, payload, iteration] of bad) {
        await attacker.services.pubsub.publish(topic, contribution(by, runId, iteration, payload)).catch(() => {});
        await sleep(30);
      }
      const zeroAt = head + 12;
      const zero = encodeSparsePayload([3, 40, 600], [0, 0, 0]);
      await attacker.services.pubsub.publish(topic, contribution(by, runId, zeroAt, zero)).catch(() => {});

      const exits = await Promise.all(nodes.map((n) => n.exit));
      for (const e of exits) assert.equal(e.code, 0, "no node crashed");
      const results = nodes.map((n) => n.result());
      assert.equal(results[0].checksum, results[1].checksum);
      assert.equal(results[0].iteration, 150);
      const attackerId = peerId.toString();
      const rejected = nodes[0].lines.filter((l) => l.msg === "gossip not accepted" && l.from === attackerId);
      for (const [what, , iteration, reason] of bad) {
        const hit = rejected.find((l) => reason.test(String(l.reason)) && l.verdict === "reject");
        assert.ok(hit, `${what} (iteration ${iteration}) rejected; saw ${rejected.map((l) => l.reason).join(" | ")}`);
      }
      // Nothing of the attacker but the zero votes is ever in a commit; replaying the log without
      // the attacker gives the same state, so the zero votes changed nothing.
      const commits = nodes[0].commits();
      const theirs = commits.flatMap((c) => c.entries.filter((e) => e.author === attackerId).map(() => c.iteration));
      assert.ok(theirs.every((t) => t === zeroAt), `attacker only in commit ${zeroAt}: ${theirs.join(",")}`);
      await useBackend("wasm");
      const run = await openRun(long);
      const replay = (skipAttacker: boolean) => {
        const r = initialReplica(run);
        const byIteration = new Map(commits.map((c) => [c.iteration, c]));
        for (const c of [...byIteration.values()].sort((x, y) => x.iteration - y.iteration))
          r.applyIteration(
            run.algorithm,
            c.entries
              .filter((e) => !skipAttacker || e.author !== attackerId)
              .map((e) => ({ author: { id: e.author, joinedAt: e.joinedAt }, payload: Buffer.from(e.payload, "hex") })),
          );
        return r.checksum();
      };
      assert.equal(replay(false), results[0].checksum);
      assert.equal(replay(true), results[0].checksum);
    } finally {
      await attacker.stop();
    }
  });
});
