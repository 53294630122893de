/**
 * A hostile peer on the gossip topics: malformed, oversized, wrong-run, invalid-payload,
 * duplicate and equivocating messages. The nodes must neither crash nor change state.
 */
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { encodeContribution } from "../../protocol/codec.js";
import { FUTURE_ITERATIONS } from "../../protocol/limits.js";
import { contributionSignedBytes } from "../../protocol/signing.js";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { stringifyTopic } from "../../protocol/topics.js";
import { type Attacker, startAttacker } from "./attacker.js";
import { cleanup, startSwarm } from "./node-process.js";

after(cleanup);

/** A join time inside the bounds validation checks (protocol/signing.ts checkJoinedAt). */
const JOINED_AT = Date.now();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("hostile gossip", () => {
  it("malformed, oversized, wrong-run, bad, duplicate and equivocating messages change nothing", async () => {
    const args = ["--iterations", "100000", "--stop-at", "150", "--log-level", "debug"];
    const nodes = await startSwarm(2, args);
    const spec = parseRunSpec({ ...PRESETS["tiny-spsa"], iterations: 100000 });
    const runId = runIdOf(spec);
    const topic = stringifyTopic({ runId, kind: "contribution" });
    const commitTopic = stringifyTopic({ runId, kind: "commit" });

    // No relaying: an attacker that forwards the others' rejected messages is charged for each
    // (gossipsub charges every peer that delivered an invalid message) and graylisted before it
    // sends its own kind, which then is never validated (CI, 2026-11-28: TOO_LARGE never logged).
    const quiet = { relay: false };
    const attacker = await startAttacker(nodes, [topic, commitTopic], quiet);
    const rejecter = await startAttacker(nodes, [topic, commitTopic], quiet);
    const oversized = await startAttacker(nodes, [topic, commitTopic], quiet);
    const forger = await startAttacker(nodes, [topic, commitTopic], quiet);
    try {
      await nodes[0].waitFor(
        (l) => l.msg === "applied" && (l.iteration ?? 0) >= 10,
        30_000,
        "iteration 10",
      );

      // Beyond the acceptance window (FUTURE_ITERATIONS = 8 past the head): ignored. The others are
      // a few iterations past the head a node last logged, so inside the window when they arrive
      // (an iteration the nodes have passed would be ignored as old before its payload is
      // checked): checked, stored when valid, never applied (their parent is no commit of ours).
      const future = 100_000 - 10;
      const near = () => Math.max(...nodes[0].lines.filter((l) => l.msg === "applied").map((l) => l.iteration ?? 0)) + FUTURE_ITERATIONS - 2;
      const payload = new Uint8Array(8).fill(90);
      // Signed by an attacker over the start of the chain's parent, as its own contributions.
      const signed = (by: Attacker, iteration: number, p: Uint8Array, run = runId) => {
        const m = { runId: run, iteration, author: by.bytes, joinedAt: JOINED_AT, payload: p, parentHash: new Uint8Array(32), signature: new Uint8Array(0) };
        return { ...m, signature: by.sign(contributionSignedBytes(m)) };
      };
      // Four identities: after a few rejects gossipsub graylists a sender and drops what it sends
      // next before validation sees (and logs) it (when depends on its score heartbeat), and an
      // oversized frame can cost the sender its stream; so the ignored kinds, the rejected kinds,
      // the forged signature and the oversized one each have their own.
      const rounds: [Attacker, (Uint8Array | (() => Uint8Array))[]][] = [
        // The future one first: the equivocation (ok, other) costs the attacker its score at once.
        [attacker, [encodeContribution(signed(attacker, future, payload))]],
        [
          rejecter,
          [
            Uint8Array.from([0xff, 0xff, 0xff, 0x01, 0x02]),
            () => encodeContribution(signed(rejecter, near(), payload, "ab".repeat(32))),
            () => encodeContribution(signed(rejecter, near(), new Uint8Array(8).fill(0x80))),
            () => encodeContribution(signed(rejecter, near(), new Uint8Array(3))),
          ],
        ],
        [forger, [() => encodeContribution({ ...signed(forger, near(), payload), signature: new Uint8Array(64).fill(3) })]],
        [oversized, [new Uint8Array(200_000).fill(7)]],
      ];
      for (const [by, list] of rounds) {
        for (const data of list) {
          await by.publish(topic, typeof data === "function" ? data() : data);
          await sleep(30);
        }
      }
      // The equivocation: two payloads for one slot, sent back to back, on a slot still ahead of the
      // nodes when they arrive (rounds of tiny-spsa can take 4 ms on a quiet machine, so a slot
      // picked before the other kinds were sent was often passed, and ignored as old): again on a
      // fresh slot until every node holds the pair.
      const slots: number[] = [];
      const holds = (n: (typeof nodes)[number]) =>
        n.lines.some((l) => l.msg === "equivocation: two signed messages for one slot" && l.signer === attacker.id && slots.includes(Number(l.iteration)));
      for (let i = 0; i < 10 && !nodes.every(holds); i++) {
        const slot = near();
        slots.push(slot);
        await attacker.publish(topic, encodeContribution(signed(attacker, slot, payload)));
        await attacker.publish(topic, encodeContribution(signed(attacker, slot, new Uint8Array(8).fill(91))));
        await sleep(300);
      }
      await attacker.publish(commitTopic, Uint8Array.from([1, 2, 3]));
      // A fresh identity's one message was sometimes never validated on a loaded machine (about 1
      // run in 3: the oversized frame, the forged signature): each such kind is sent again, as a
      // new message, until a node has logged its code.
      const seenCode = (code: string) => nodes.some((n) => n.lines.some((l) => l.msg === "gossip not accepted" && l.code === code));
      const resend: [string, Attacker, (i: number) => Uint8Array][] = [
        ["TOO_LARGE", oversized, (i) => new Uint8Array(4096 + i).fill(7)],
        ["BAD_SIGNATURE", forger, (i) => encodeContribution({ ...signed(forger, near() + (i % 2), payload), signature: new Uint8Array(64).fill(3) })],
      ];
      for (const [code, by, make] of resend)
        for (let i = 0; i < 10 && !seenCode(code); i++) {
          await sleep(300);
          await by.publish(topic, make(i));
        }

      const exits = await Promise.all(nodes.map((n) => n.exit));
      for (const e of exits) assert.equal(e.code, 0, "no node crashed");
      const results = nodes.map((n) => n.result());
      assert.equal(results[0].checksum, results[1].checksum);
      assert.equal(results[0].iteration, 150);
      const attackerId = attacker.id;
      const hostileIds = new Set([attacker.id, rejecter.id, oversized.id, forger.id]);
      for (const n of nodes) {
        assert.ok(
          n.commits().every((c) => c.entries.every((e) => !hostileIds.has(e.author))),
          "attacker never included",
        );
      }
      const codes = new Set(
        nodes.flatMap((n) =>
          n.lines
            .filter((l) => l.msg === "gossip not accepted" && hostileIds.has(String(l.from)))
            .map((l) => `${l.code}:${l.verdict}`),
        ),
      );
      for (const want of [
        "MALFORMED:reject",
        "TOO_LARGE:reject",
        "WRONG_RUN:reject",
        "BAD_PAYLOAD:reject",
        // No DUPLICATE here: a byte-identical repeat never reaches validation, since message ids
        // are the content's SHA-256 (StrictNoSign) and gossipsub drops it as seen. The
        // application's dedupe is for replays after gossipsub's seen-cache expires (its code is
        // covered in validation.test.ts and gossip-seen.test.ts).
        "BAD_SIGNATURE:reject",
        "FUTURE_ITERATION:ignore",
      ]) {
        assert.ok(codes.has(want), `expected ${want}; saw ${[...codes].join(", ")}`);
      }
      // The equivocation is no reject (that would charge relayers): each node holds the pair as
      // evidence and charges the attacker, its signer.
      for (const n of nodes) {
        assert.ok(
          holds(n),
          `evidence held against the attacker (slots ${slots.join(", ")})`,
        );
        assert.ok(n.lines.some((l) => l.msg === "peer penalised" && l.peer === attackerId), "the attacker is penalised");
      }
    } finally {
      await Promise.all([attacker, rejecter, oversized, forger].map((a) => a.stop()));
    }
  });
});
