/**
 * Faults with real node processes, short versions of the chaos suite's scenarios (npm run chaos
 * runs the long ones and writes docs/reliability.md): a whole swarm SIGKILLed and restarted, a
 * node frozen past the round deadline (SIGSTOP, SIGCONT), and bad disks (full, torn commit log, corrupt checkpoints, stale temp files).
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { fullDisk, tornAndCorrupt } from "../../bench/chaos/disk-faults.js";
import { pause } from "../../bench/chaos/pause.js";
import { wholeSwarmRestart } from "../../bench/chaos/whole-swarm-restart.js";
import { cleanup } from "./node-process.js";
after(cleanup);
/** Fails with every check that did not hold, and what it measured. */
function assertChecks(checks) {
    const failed = checks.filter((c) => !c.pass);
    assert.deepEqual(failed, [], failed.map((c) => `${c.name}: ${c.detail}`).join("\n"));
}
describe("faults, real processes", () => {
    it("R5: a whole swarm SIGKILLed after a checkpoint resumes at its logs' last iteration, rewriting none", async () => {
        const r = await wholeSwarmRestart({ nodes: 3, checkpointEvery: 10, killAt: 25, after: 5 });
        assertChecks(r.checks);
        // Killed past a checkpoint: the log, not the checkpoint, set where the nodes resumed.
        assert.ok(r.heads.some((h) => h.resumed > h.checkpoint), r.heads.map((h) => `resumed ${h.resumed}, checkpoint ${h.checkpoint}`).join("; "));
    });
    it("R3: a node SIGSTOPped past the deadline detects the stall, catches up before proposing, and nobody undoes work", async () => {
        // Throughput against R1 is the chaos suite's figure (a loaded CI machine says little about it).
        const r = await pause({ nodes: 3, deadlines: 3, afterS: 6, baselineItPerS: 1 });
        assertChecks(r.checks.filter((c) => !c.name.startsWith("others keep")));
    });
    it("R11: a full disk (a real tmpfs) while training and at the stop: logged, training goes on, exit 1 at the stop, right state after", async () => {
        assertChecks(await fullDisk(5));
    });
    it("R11: torn commit log, truncated checkpoint, stale temp file, then both checkpoints corrupt: right state from the log", async () => {
        assertChecks(await tornAndCorrupt(5));
    });
});
//# sourceMappingURL=faults.test.js.map