/**
 * Marketplace claims audited by recomputation (issue 15): a V1 author claiming loss 0, or another
 * author's path, and a V2 author altering its losses, fail; honest claims pass on another backend.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { localAuthors, localIteration } from "../../../node/local/local-trainer.js";
import { decodeV1, encodeV1, encodeV2 } from "../../../protocol/marketplace-payload.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
for (const version of [1, 2]) {
    describe(`Marketplace V${version} audits (tiny-marketplace)`, () => {
        it("honest claims pass on another backend; a lie about a loss or a path fails", async () => {
            const base = PRESETS["tiny-marketplace"];
            const spec = parseRunSpec({ ...base, algorithm: { ...base.algorithm, version } });
            await useBackend("wasm");
            const run = await openRun(spec);
            const market = run.algorithm;
            const replica = initialReplica(run);
            const authors = localAuthors(3);
            while (replica.iteration < 5)
                localIteration(run, replica, authors);
            for (const author of authors) {
                await useBackend("wasm");
                const honest = market.contribute(replica, author);
                await useBackend("cpu");
                assert.equal(market.audit(replica, author, honest), null, `honest V${version} claim of ${author.id}`);
                if (version === 1) {
                    const { loss, path } = decodeV1(honest);
                    // The liar of the issue: loss 0 wins every V1 iteration.
                    assert.match(market.audit(replica, author, encodeV1(0, path)) ?? "", /claimed loss 0/);
                    assert.match(market.audit(replica, author, encodeV1(loss * 0.9, path)) ?? "", /claimed loss/);
                    // Another author's winning path under its own claimed loss: not one of this author's paths,
                    // or not what it measured there.
                    const other = decodeV1(market.contribute(replica, authors[(authors.indexOf(author) + 1) % 3]));
                    const stolen = market.audit(replica, author, encodeV1(other.loss, other.path));
                    if (other.path.join() !== path.join())
                        assert.notEqual(stolen, null, "a stolen path and loss");
                }
                else {
                    const losses = market.lastEvaluation?.losses ?? new Float32Array();
                    const lowered = Float32Array.from(losses, (l, j) => (j === 0 ? l * 0.5 : l));
                    assert.match(market.audit(replica, author, encodeV2(lowered)) ?? "", /path 0: claimed loss/);
                }
            }
            await useBackend("wasm");
            replica.dispose();
        });
    });
}
//# sourceMappingURL=marketplace-audit.test.js.map