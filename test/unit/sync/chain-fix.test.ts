import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rounds } from "../../../node/chain/rounds.js";
import { createLogger } from "../../../node/ground/index.js";
import { ChainFix } from "../../../node/sync/chain-fix.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { initialReplica, openRun } from "../../../training/run-context.js";

/** Real rounds that never run a round (stopAt 0): only their active/following state matters. */
async function idleRounds(): Promise<Rounds> {
  await useBackend("wasm");
  const run = await openRun(parseRunSpec(PRESETS["tiny-spsa"]));
  const transport = { publishContribution: async () => {}, publishCommit: async () => {}, sign: () => new Uint8Array(64) };
  const opts = { roundTimeoutMs: 200, stopAt: 0, contribute: true };
  return new Rounds({ id: "self", joinedAt: 0 }, run, initialReplica(run), transport, opts, createLogger({ level: "silent" }));
}

describe("chain fix (follow while fixing)", () => {
  it("follows during the fix, busy only meanwhile; an active node trains again afterwards", async () => {
    const rounds = await idleRounds();
    const fix = new ChainFix(rounds);
    rounds.start();
    rounds.notePeerHead(5);
    const seen = await fix.run({ restart: "if-active", forgetPeersHead: true }, async () => ({
      busy: fix.busy,
      active: rounds.isActive,
    }));
    assert.deepEqual(seen, { busy: true, active: false });
    assert.equal(fix.busy, false);
    assert.equal(rounds.isActive, true);
    assert.equal(rounds.behind, false, "the peers' head was forgotten");
  });

  it("'if-active' leaves a following node following; 'always' starts it; peers' head kept when asked", async () => {
    const rounds = await idleRounds();
    const fix = new ChainFix(rounds);
    rounds.follow();
    await fix.run({ restart: "if-active", forgetPeersHead: false }, async () => {});
    assert.equal(rounds.isActive, false);
    rounds.notePeerHead(5);
    await fix.run({ restart: "always", forgetPeersHead: false }, async () => {});
    assert.equal(rounds.isActive, true);
    assert.equal(rounds.behind, true, "the peers' head is still known");
  });

  it("a fix that throws still ends: not busy, rounds restarted, the error passed on", async () => {
    const rounds = await idleRounds();
    const fix = new ChainFix(rounds);
    rounds.start();
    await assert.rejects(
      fix.run({ restart: "if-active", forgetPeersHead: false }, async () => {
        throw new Error("boom");
      }),
      /boom/,
    );
    assert.equal(fix.busy, false);
    assert.equal(rounds.isActive, true);
  });
});
