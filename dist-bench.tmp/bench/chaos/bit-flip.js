/** R9: one weight bit flipped in one replica (the SEEDSWARM_FAULT corrupt@N hook): iterations until it is detected and until it is repaired. */
import { startSwarm } from "../../test/e2e/node-process.js";
import { check } from "./scenario.js";
import { exitsWithin, resultOf } from "./swarm-logs.js";
export async function bitFlip(o = { nodes: 4, flipAt: 25, checkEvery: 10, iterations: 80 }) {
    const env = Array.from({ length: o.nodes }, (_, i) => (i === o.nodes - 1 ? { SEEDSWARM_FAULT: `corrupt@${o.flipAt}` } : {}));
    const nodes = await startSwarm(o.nodes, ["--iterations", String(o.iterations), "--stop-at", String(o.iterations), "--check-every", String(o.checkEvery)], env);
    const bad = nodes[o.nodes - 1];
    const exits = await exitsWithin(nodes, 60_000 + o.iterations * 2_000);
    const flipped = bad.lines.find((l) => l.msg === "fault injected: one weight bit flipped");
    const detected = bad.lines.find((l) => l.msg === "divergence suspected" || l.msg === "diverged from peers; repairing");
    const repaired = bad.lines.find((l) => l.msg === "repaired");
    const at = flipped?.iteration ?? o.flipAt;
    const detect = detected ? (detected.iteration ?? 0) - at : Number.NaN;
    const repair = repaired ? (repaired.iteration ?? 0) - at : Number.NaN;
    const finals = new Set(nodes.map((n) => resultOf(n)?.checksum));
    return {
        id: "r9",
        title: "R9: a flipped bit in one replica",
        figures: { r9_detect_iterations: detect, r9_repair_iterations: repair },
        checks: [
            check(`detected within C = ${o.checkEvery} iterations`, detect >= 0 && detect <= o.checkEvery, `${detect} iteration(s) after the flip at ${at}`),
            check(`repaired within C = ${o.checkEvery} iterations`, repair >= 0 && repair <= o.checkEvery, `${repair} iteration(s) after the flip`),
            check("every replica ends bit-identical", repair >= 0 && finals.size === 1 && exits.every((e) => e.finished && e.code === 0), `repaired ${repair} iteration(s) after the flip; ${finals.size} final checksum(s)`),
        ],
        notes: `${o.nodes} tiny-spsa nodes, check every ${o.checkEvery}; node ${o.nodes - 1} flips bit 20 of its 8th weight after iteration ${o.flipAt}.`,
    };
}
//# sourceMappingURL=bit-flip.js.map