import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as tf from "@tensorflow/tfjs";
import { useBackend } from "../../../training/engine.js";
import { webGpuProblem } from "../../helpers/vulkan.js";
const skip = (await webGpuProblem()) ?? false;
function recorder() {
    const lines = [];
    return { lines, info: (obj, msg) => lines.push({ obj: obj, msg }), debug: (obj, msg) => lines.push({ obj: obj, msg }) };
}
describe("the webgpu backend (tfjs-webgpu on Dawn, lavapipe)", { skip }, () => {
    it("auto passes over it and says why", async () => {
        const log = recorder();
        const chosen = await useBackend("auto", log);
        assert.notEqual(chosen, "webgpu");
        const skipped = log.lines.find((l) => l.msg === "backend skipped");
        assert.equal(skipped?.obj.backend, "webgpu");
        assert.match(String(skipped?.obj.reason), /synchronously/);
    });
    it("loads by name, checks tf.getBackend() and logs the adapter", async () => {
        const log = recorder();
        assert.equal(await useBackend("webgpu", log), "webgpu");
        assert.equal(tf.getBackend(), "webgpu");
        const inUse = log.lines.find((l) => l.msg === "backend in use");
        assert.match(String(inUse?.obj.device), /llvmpipe.*\(software\)/);
    });
    it("computes on the device (read asynchronously) what cpu computes, and refuses dataSync by name", async () => {
        await useBackend("webgpu");
        const a = tf.tensor2d(Array.from({ length: 64 * 48 }, (_, i) => Math.sin(i)), [64, 48]);
        const b = tf.tensor2d(Array.from({ length: 48 * 32 }, (_, i) => Math.cos(i)), [48, 32]);
        const onGpu = await tf.tanh(tf.matMul(a, b)).data();
        assert.throws(() => tf.matMul(a, b).dataSync(), (err) => err.code === "BACKEND_NO_SYNC_READ");
        await useBackend("cpu");
        const onCpu = tf.tanh(tf.matMul(tf.tensor2d(Array.from({ length: 64 * 48 }, (_, i) => Math.sin(i)), [64, 48]), tf.tensor2d(Array.from({ length: 48 * 32 }, (_, i) => Math.cos(i)), [48, 32]))).dataSync();
        let worst = 0;
        for (let i = 0; i < onCpu.length; i++)
            worst = Math.max(worst, Math.abs(onCpu[i] - onGpu[i]));
        assert.ok(worst < 1e-4, `webgpu and cpu differ by ${worst}`);
    });
});
//# sourceMappingURL=webgpu-backend.test.js.map