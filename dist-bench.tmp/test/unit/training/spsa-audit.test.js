import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { localAuthors, localIteration } from "../../../node/local/local-trainer.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { AUDIT_LOSS_TOLERANCE } from "../../../training/algorithms/audit-tolerance.js";
import { useBackend } from "../../../training/engine.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
/** The Byzantine payloads the audits must catch, from an honest payload (signed bytes). */
const BYZANTINE = {
    // The largest step uphill along every direction drawn.
    "max magnitude, flipped sign": (h) => h.map((b) => (b > 0 ? -127 : b < 0 ? 127 : 127)),
    "sign-flipped honest bytes": (h) => h.map((b) => -b),
    // Measured honestly, but on another batch and direction (another author's seeds).
    "bytes of another batch": (_h, other) => other,
    random: (h, _o, rand) => h.map(() => Math.floor(rand() * 255) - 127),
};
describe("SPSA audits by recomputation (real MNIST, mnist-mlp-spsa)", () => {
    it("pass every honest contribution across backends and catch each Byzantine mode", async (t) => {
        const spec = parseRunSpec(PRESETS["mnist-mlp-spsa"]);
        await useBackend("wasm");
        const run = await openRun(spec);
        const spsa = run.algorithm;
        const replica = initialReplica(run);
        const authors = localAuthors(2);
        let seed = 7;
        const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
        const caught = Object.fromEntries(Object.keys(BYZANTINE).map((k) => [k, 0]));
        let honestPassed = 0;
        let maxRelLossDiff = 0;
        let cases = 0;
        for (const stop of [6]) {
            while (replica.iteration < stop)
                localIteration(run, replica, authors);
            for (const author of authors) {
                await useBackend("wasm");
                const honest = new Int8Array(spsa.contribute(replica, author).buffer.slice(0));
                const wasmLosses = spsa.lastMeasurements.map((m) => [m.lossPlus, m.lossMinus]).flat();
                const other = new Int8Array(spsa.contribute(replica, { id: `${author.id}-other`, joinedAt: 0 }).buffer.slice(0));
                // The auditor runs another backend: float differences must stay within the tolerance.
                await useBackend("cpu");
                const lastLoss = spsa.lastLoss;
                if (spsa.audit(replica, author, new Uint8Array(honest.buffer)) === null)
                    honestPassed++;
                assert.equal(spsa.lastLoss, lastLoss, "an audit leaves lastLoss alone");
                spsa.contribute(replica, author);
                const cpuLosses = spsa.lastMeasurements.map((m) => [m.lossPlus, m.lossMinus]).flat();
                cpuLosses.forEach((l, i) => (maxRelLossDiff = Math.max(maxRelLossDiff, Math.abs(l - wasmLosses[i]) / Math.max(1, Math.abs(l)))));
                for (const [mode, make] of Object.entries(BYZANTINE)) {
                    const bad = make(honest, other, rand);
                    if (spsa.audit(replica, author, new Uint8Array(bad.buffer)) !== null)
                        caught[mode]++;
                }
                cases++;
            }
        }
        await useBackend("wasm");
        replica.dispose();
        t.diagnostic(JSON.stringify({ cases, honestPassed, maxRelLossDiff, caught }));
        assert.equal(honestPassed, cases, "every honest contribution passes on the other backend");
        assert.ok(maxRelLossDiff < AUDIT_LOSS_TOLERANCE / 10, `cpu vs wasm loss difference ${maxRelLossDiff} leaves a 10x margin`);
        // Every mode is caught in most single audits; one catch is enough to exclude.
        for (const [mode, n] of Object.entries(caught))
            assert.ok(n >= 0.9 * cases, `${mode}: caught ${n} of ${cases}`);
        assert.equal(caught["max magnitude, flipped sign"], cases);
        assert.match(spsa.audit(initialReplica(run), authors[0], new Uint8Array(3)) ?? "", /payload of 3 bytes, 16 recomputed/);
    });
});
//# sourceMappingURL=spsa-audit.test.js.map