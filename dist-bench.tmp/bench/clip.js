/**
 * The SPSA clip (RunSpec `algorithm.clip`, issue 15): what bounding each byte costs a clean run of
 * `mnist-mlp-spsa`, and what it buys against one Byzantine author among four that sends the
 * largest byte against its own measured sign every time.
 *
 * Each clipped arm reuses its unclipped run's runId (`createAlgorithm` with the clipped spec), so
 * the arms see the same directions and minibatches and differ only by the clip; a real clipped run
 * has its own runId, hence other seeds.
 */
import { localAuthors } from "../node/local/local-trainer.js";
import { dequantizeGradient, gradientCodeBound } from "../protocol/gradient-byte.js";
import { PRESETS } from "../protocol/presets.js";
import { parseRunSpec } from "../protocol/run-spec.js";
import { createAlgorithm } from "../training/algorithms/create.js";
import { loadMnist } from "../training/data/mnist.js";
import { useBackend } from "../training/engine.js";
import { evaluate } from "../training/evaluate.js";
import { initialReplica, openRun } from "../training/run-context.js";
const PRESET = PRESETS["mnist-mlp-spsa"];
/** The bounds tried: 2 is about the 99th percentile of honest |g| past the first few hundred iterations. */
const CLIPS = [2, 1];
/** Iterations of the four-author runs (their own schedule: lr decays over them). */
const BYZANTINE_ITERATIONS = 150;
function spec(clip, iterations) {
    return parseRunSpec({
        ...PRESET,
        iterations,
        algorithm: { ...PRESET.algorithm, ...(clip === undefined ? {} : { clip }) },
    });
}
/** `base` with the algorithm of `clip`, under base's runId (same seeds). */
function withClip(base, clip, ds) {
    if (clip === undefined)
        return base;
    const s = spec(clip, base.spec.iterations);
    return { ...base, spec: s, algorithm: createAlgorithm(base.runId, s, base.model, ds.train) };
}
/**
 * Trains `run` for its iterations with `honest` authors, and with attack "flip" one more author
 * that measures like an honest one, then sends -127 where it measured g > 0 and 127 where g < 0;
 * "absent": that author sends zero bytes (counted in m, no step).
 */
function train(run, ds, honest, attack) {
    const authors = localAuthors(honest + (attack === "none" ? 0 : 1));
    const byzantine = attack === "none" ? undefined : authors[honest];
    const spsa = run.algorithm;
    const replica = initialReplica(run);
    const grads = [];
    while (replica.iteration < run.spec.iterations) {
        const cs = authors.map((author) => {
            if (author === byzantine && attack === "absent")
                return { author, payload: new Uint8Array(spsa.maxPayloadBytes) };
            const payload = spsa.contribute(replica, author);
            if (author !== byzantine)
                for (const m of spsa.lastMeasurements)
                    grads.push(Math.abs(m.gradient));
            else
                for (const [j, b] of new Int8Array(payload.buffer).entries())
                    payload[j] = b > 0 ? 256 - 127 : b < 0 ? 127 : 0;
            return { author, payload };
        });
        replica.applyIteration(spsa, cs);
    }
    const acc = evaluate(run.model, replica.backend.tensors, ds.test).accuracy;
    replica.dispose();
    return { acc, grads: Float64Array.from(grads).sort() };
}
const pct = (x) => `${(100 * x).toFixed(2)}%`;
const quantile = (xs, p) => xs[Math.floor(p * (xs.length - 1))];
const above = (xs, v) => xs.filter((x) => x > v).length / xs.length;
export async function clipSection() {
    await useBackend("wasm");
    const ds = await loadMnist();
    const clean = await openRun(spec(undefined, PRESET.iterations), ds);
    const cleanNone = train(clean, ds, 1, "none");
    const cleanClipped = CLIPS.map((c) => train(withClip(clean, c, ds), ds, 1, "none"));
    const byz = await openRun(spec(undefined, BYZANTINE_ITERATIONS), ds);
    const absent = train(byz, ds, 3, "absent");
    const flipNone = train(byz, ds, 3, "flip");
    const flipClipped = CLIPS.map((c) => train(withClip(byz, c, ds), ds, 3, "flip"));
    const g = cleanNone.grads;
    const bound = (c) => dequantizeGradient(gradientCodeBound(c));
    const a = PRESET.algorithm;
    return {
        id: "clip",
        title: "SPSA clip: its cost on a clean run, and one Byzantine author among four",
        command: "node dist/bench/run.js --only clip",
        markdown: `\`mnist-mlp-spsa\` (784-32-10 MLP, ${a.perturbations} bytes per author, lr ${a.schedule.lr} decaying to ${a.schedule.lr * a.schedule.minFactor}, \`lrScaling\` linear capped at ${a.lrScaling.cap}), wasm backend, test accuracy on all 10,000 MNIST test images. A clip c clamps every byte to the largest code within c (clip 2 steps at most ${bound(2).toFixed(3)}, clip 1 at most 1; an unclipped byte up to 29.3). Each clipped arm reuses the unclipped run's runId, so all arms draw the same directions and minibatches.

**Clean** (one honest author, ${PRESET.iterations} iterations, the preset's schedule). Honest |g| over the run: median ${quantile(g, 0.5).toFixed(3)}, 90th percentile ${quantile(g, 0.9).toFixed(3)}, 99th ${quantile(g, 0.99).toFixed(3)}, largest ${g[g.length - 1].toFixed(2)}; ${pct(above(g, bound(2)))} of the bytes lie above clip 2, ${pct(above(g, 1))} above clip 1.

| clip | test accuracy | cost (points) |
|---|---|---|
| none | ${pct(cleanNone.acc)} | |
${CLIPS.map((c, i) => `| ${c} | ${pct(cleanClipped[i].acc)} | ${(100 * (cleanNone.acc - cleanClipped[i].acc)).toFixed(2)} |`).join("\n")}

**Byzantine** (four authors, ${BYZANTINE_ITERATIONS} iterations, the same schedule over them: the spec with \`iterations: ${BYZANTINE_ITERATIONS}\`). Three honest authors; the fourth measures its own pairs like an honest one, then sends -127 where it measured g > 0 and +127 where g < 0 (the largest step uphill along every direction it draws). "Absent": the fourth sends only zero bytes (the same m, no step), the reference of three honest authors.

| fourth author | clip | test accuracy |
|---|---|---|
| absent (zero bytes) | none | ${pct(absent.acc)} |
| Byzantine | none | ${pct(flipNone.acc)} |
${CLIPS.map((c, i) => `| Byzantine | ${c} | ${pct(flipClipped[i].acc)} |`).join("\n")}`,
        figures: {
            clean_acc_noclip: cleanNone.acc,
            clean_acc_clip_2: cleanClipped[0].acc,
            clean_acc_clip_1: cleanClipped[1].acc,
            clean_acc_cost_of_clipping_pp: 100 * (cleanNone.acc - cleanClipped[0].acc),
            clean_acc_cost_of_clipping_1_pp: 100 * (cleanNone.acc - cleanClipped[1].acc),
            honest_grad_abs_p50: quantile(g, 0.5),
            honest_grad_abs_p99: quantile(g, 0.99),
            byzantine_clip_acc_absent: absent.acc,
            byzantine_clip_acc_none: flipNone.acc,
            byzantine_clip_acc_2: flipClipped[0].acc,
            byzantine_clip_acc_1: flipClipped[1].acc,
        },
    };
}
//# sourceMappingURL=clip.js.map