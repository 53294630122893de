import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { localAuthors } from "../../../node/local/local-trainer.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec } from "../../../protocol/run-spec.js";
import { useBackend } from "../../../training/engine.js";
import { initialReplica, openRun } from "../../../training/run-context.js";
const spec = parseRunSpec(PRESETS["tiny-spsa"]);
describe("canonical update across backends", () => {
    it("the same contributions give the same SHA-256 on cpu and wasm", async () => {
        await useBackend("cpu");
        const run = await openRun(spec);
        const authors = localAuthors(3);
        const cpu = initialReplica(run);
        const log = [];
        for (let t = 0; t < 6; t++) {
            const cs = authors.map((author) => ({
                author,
                payload: run.algorithm.contribute(cpu, author),
            }));
            log.push(cs);
            cpu.applyIteration(run.algorithm, cs);
        }
        const cpuSum = cpu.checksum();
        assert.ok(log.flat().some((c) => c.payload.some((b) => b !== 0)), "contributions carry gradient bytes");
        await useBackend("wasm");
        assert.equal(tf.getBackend(), "wasm");
        const wasmRun = await openRun(spec, run.dataset);
        const wasm = initialReplica(wasmRun);
        assert.equal(wasm.checksum(), initialReplica(run).checksum(), "initial weights agree");
        for (const cs of log)
            wasm.applyIteration(wasmRun.algorithm, [...cs].reverse());
        assert.equal(wasm.checksum(), cpuSum);
        assert.equal(wasm.iteration, 6);
        // The backend copy is refreshed from the canonical weights, bit for bit.
        const back = new Float32Array(wasm.weights.length);
        for (const [i, t] of wasm.model.layout.tensors.entries()) {
            back.set(wasm.backend.tensors[i].dataSync(), t.offset);
        }
        assert.deepEqual(back, wasm.weights);
        // Contributions computed on wasm from the same state are the same bytes or adjacent codes
        // (forward passes may round differently across backends; only the author's byte choice moves).
        const probe = initialReplica(wasmRun);
        const onWasm = wasmRun.algorithm.contribute(probe, authors[0]);
        const onCpu = log[0][0].payload;
        for (let j = 0; j < onWasm.length; j++) {
            assert.ok(Math.abs(((onWasm[j] << 24) >> 24) - ((onCpu[j] << 24) >> 24)) <= 1, `byte ${j}: ${onWasm[j]} vs ${onCpu[j]}`);
        }
        cpu.dispose();
        wasm.dispose();
        probe.dispose();
    });
    it("refuses an unknown backend and names what to install for a missing one", async () => {
        await assert.rejects(useBackend("quantum"), /unknown backend "quantum"/);
        await assert.rejects(useBackend("tensorflow-gpu"), (err) => {
            assert.equal(err.code, "BACKEND_UNAVAILABLE");
            assert.match(err.message, /@tensorflow\/tfjs-node-gpu/);
            return true;
        });
    });
});
//# sourceMappingURL=backends.test.js.map