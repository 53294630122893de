/**
 * SPSA's own work at language-model scale (issue 13): the canonical update of one commit and the
 * seeded in-place perturbation on GPT-2 small's 124,439,808 float32 parameters, in WebAssembly,
 * with the JavaScript reference beside it on a slice.
 */
import os from "node:os";
import { SpsaKernels } from "../training/algorithms/spsa-kernels.js";
import { applyUpdateJs, perturbJs, planPasses } from "../training/algorithms/spsa-update.js";
import { layoutOf } from "../training/params.js";
import { seedFrom } from "../training/rng/seeds.js";
import { fmt, timeMs } from "./report.js";
/**
 * CPU time (user + system) of one run: on a machine shared with other work the wall time
 * includes the slices other processes get; the CPU time of this one thread does not.
 */
function cpuMs(fn) {
    const t = process.cpuUsage();
    fn();
    const d = process.cpuUsage(t);
    return (d.user + d.system) / 1000;
}
/** GPT-2 small's tensors in Hugging Face order (tied head). */
function gpt2SmallLayout() {
    const d = 768;
    const t = (name, shape) => ({ name, shape, fanIn: shape[0], init: "zeros" });
    const entries = [t("wte", [50257, d]), t("wpe", [1024, d])];
    for (let l = 0; l < 12; l++) {
        entries.push(t(`h${l}.ln_1.w`, [d]), t(`h${l}.ln_1.b`, [d]), t(`h${l}.attn.c_attn.w`, [d, 3 * d]), t(`h${l}.attn.c_attn.b`, [3 * d]), t(`h${l}.attn.c_proj.w`, [d, d]), t(`h${l}.attn.c_proj.b`, [d]), t(`h${l}.ln_2.w`, [d]), t(`h${l}.ln_2.b`, [d]), t(`h${l}.mlp.c_fc.w`, [d, 4 * d]), t(`h${l}.mlp.c_fc.b`, [4 * d]), t(`h${l}.mlp.c_proj.w`, [4 * d, d]), t(`h${l}.mlp.c_proj.b`, [d]));
    }
    entries.push(t("ln_f.w", [d]), t("ln_f.b", [d]));
    return layoutOf(entries);
}
/** A 3-node commit of 16 perturbations each: 48 bytes, spread over the code like real ones. */
function commitSteps(m) {
    return Array.from({ length: m }, (_, q) => ({
        seed: seedFrom("bench/lm-update", [q]),
        byte: (q % 2 ? -1 : 1) * (60 + ((q * 7) % 50)),
    }));
}
export async function lmUpdateSection() {
    const layout = gpt2SmallLayout();
    const n = layout.size;
    const m = 48;
    const lr = 1e-6;
    const passes = planPasses(commitSteps(m), m, lr);
    // Canonical weights and the forward pass's buffer, both in the kernels' memory (no copies).
    const kernels = new SpsaKernels(2 * n);
    const canonical = kernels.arena.subarray(0, n);
    const forward = kernels.arena.subarray(n, 2 * n);
    for (let i = 0; i < n; i++)
        canonical[i] = ((i % 1999) - 999) * 1e-4;
    const apply = () => {
        for (const plans of passes)
            kernels.apply(canonical, layout, plans);
    };
    const applyMs = timeMs(apply, 2, 1);
    const applyCpuMs = cpuMs(apply);
    const seed = seedFrom("bench/lm-update", ["perturb"]);
    const eps = Math.fround(1e-3);
    const perturb = () => {
        kernels.perturb(forward, canonical, layout, seed, eps, 1);
        kernels.perturb(forward, canonical, layout, seed, eps, -1);
        forward.set(canonical);
    };
    const arenaPerturbMs = timeMs(perturb, 3, 1);
    const restoreMs = timeMs(() => forward.set(canonical), 3, 1);
    // What SPSA does on wasm (Spsa.perturbedTensors): each tensor's perturbed values into one
    // scratch array of the largest tensor's size, which the backend copies (here: not uploaded),
    // + then -; nothing to restore.
    const scratch = new Float32Array(Math.max(...layout.tensors.map((t) => t.size)));
    const perTensor = () => {
        for (const sign of [1, -1]) {
            for (const [ti, t] of layout.tensors.entries())
                kernels.perturbTensor(scratch.subarray(0, t.size), 0, canonical, t, ti, seed, eps, sign);
        }
    };
    const perturbMs = timeMs(perTensor, 3, 1);
    const perturbCpuMs = cpuMs(perTensor);
    // The same work on plain Float32Arrays outside the kernels' memory (streamed in chunks).
    const plain = canonical.slice();
    const applyStreamMs = timeMs(() => {
        for (const plans of passes)
            kernels.apply(plain, layout, plans);
    }, 1, 1);
    const plainOut = new Float32Array(n);
    const perturbStreamMs = timeMs(() => {
        kernels.perturb(plainOut, plain, layout, seed, eps, 1);
        kernels.perturb(plainOut, plain, layout, seed, eps, -1);
        plainOut.set(plain);
    }, 2, 1);
    // The JavaScript reference on the first 4M parameters, scaled to the model.
    const slice = layoutOf([{ name: "slice", shape: [1 << 22], fanIn: 1, init: "zeros" }]);
    const sw = plain.subarray(0, 1 << 22);
    const jsApplyMs = (timeMs(() => {
        for (const plans of passes)
            applyUpdateJs(sw, slice, plans);
    }, 1, 1) * n) / (1 << 22);
    const so = new Float32Array(1 << 22);
    const jsPerturbMs = (timeMs(() => {
        perturbJs(so, sw, slice, seed, eps, 1);
        perturbJs(so, sw, slice, seed, eps, -1);
        so.set(sw);
    }, 1, 1) * n) / (1 << 22);
    const perByte = applyMs / m;
    return {
        id: "lm-update",
        title: "SPSA at language-model scale: the canonical update and the in-place perturbation (124M parameters)",
        command: "npm run bench -- --only lm-update",
        markdown: `GPT-2 small's ${n.toLocaleString("en-US")} float32 parameters in its ${layout.tensors.length} tensors, one thread. Apply: one commit of ${m} bytes (3 nodes x 16 perturbations) in one pass over the weights (the canonical rule, docs/architecture.md), per byte. Perturb: one perturbation as SPSA makes it = w + eps z, then w - eps z, tensor by tensor into one array of the largest tensor's size, which the backend copies (\`Spsa.perturbedTensors\` on wasm; noise regenerated from the seed each time; the upload itself not timed); beside it the older path: both into one forward buffer in the kernels' memory, then restored from the canonical weights. Targets: apply <= 30 ms per byte, perturb <= 300 ms. Wall times (medians) are the figures; the CPU time of the same work is shown beside them because this machine's 2 cores are shared (load average at measurement: ${os.loadavg()[0].toFixed(1)}).

| work | WebAssembly, in the kernels' memory | WebAssembly, plain Float32Arrays (streamed) | JS reference (from 4M params) |
|---|---|---|---|
| apply, one commit of ${m} bytes (ms) | ${fmt(applyMs)} | ${fmt(applyStreamMs)} | ${fmt(jsApplyMs)} |
| apply per byte (ms) | ${fmt(perByte)} | ${fmt(applyStreamMs / m)} | ${fmt(jsApplyMs / m)} |
| perturb +, perturb - tensor by tensor (ms) | ${fmt(perturbMs)} | | |
| perturb +, perturb -, restore, one forward buffer (ms) | ${fmt(arenaPerturbMs)} | ${fmt(perturbStreamMs)} | ${fmt(jsPerturbMs)} |
| of which restore (a copy, ms) | ${fmt(restoreMs)} | | |
| CPU time: apply per byte, perturb (ms) | ${fmt(applyCpuMs / m)}, ${fmt(perturbCpuMs)} | | |

Memory: the canonical weights, ${fmt((4 * n) / 2 ** 20)} MiB, plus ${m} x 512 bytes of sign scratch; a perturbation holds one tensor's values at a time on the host (the largest, the token embedding: ${fmt((4 * Math.max(...layout.tensors.map((t) => t.size))) / 2 ** 20)} MiB) besides the backend's copy. (The forward buffer of the older path is another ${fmt((4 * n) / 2 ** 20)} MiB.)`,
        figures: {
            lm_apply_ms_per_byte_124m: perByte,
            lm_perturb_ms_124m: perturbMs,
            lm_perturb_ms_124m_arena: arenaPerturbMs,
            lm_apply_cpu_ms_per_byte_124m: applyCpuMs / m,
            lm_perturb_cpu_ms_124m: perturbCpuMs,
            lm_apply_ms_per_byte_124m_streamed: applyStreamMs / m,
            lm_perturb_ms_124m_streamed: perturbStreamMs,
            lm_apply_ms_per_byte_124m_js: jsApplyMs / m,
            lm_perturb_ms_124m_js: jsPerturbMs,
        },
    };
}
//# sourceMappingURL=lm-update.js.map