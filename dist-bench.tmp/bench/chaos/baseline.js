/** R1: 4 nodes, fault-free, a fixed number of iterations: checksum mismatches and iterations/s (the baseline the other scenarios compare with). */
import { startSwarm } from "../../test/e2e/node-process.js";
import { check } from "./scenario.js";
import { checksumDisagreements, countLines, exitsWithin, headAt, resultOf } from "./swarm-logs.js";
/** Iterations skipped at the start of the rate (process start-up and mesh forming are not the steady rate). */
const WARMUP = 10;
export async function baseline(o = { nodes: 4, iterations: 500 }) {
    const nodes = await startSwarm(o.nodes, ["--iterations", String(o.iterations), "--stop-at", String(o.iterations)]);
    // Generous (several times the run at R1's slowest measured rate) yet bounded: a stuck node must not hang the suite.
    const exits = await exitsWithin(nodes, 60_000 + o.iterations * 2_000);
    const timeOf = (it) => Math.min(...nodes.map((n) => n.applied(it)?.time ?? Infinity));
    const itPerS = (o.iterations - WARMUP) / ((timeOf(o.iterations) - timeOf(WARMUP)) / 1000);
    const { iterations: disagree, compared } = checksumDisagreements(nodes);
    const suspected = countLines(nodes, "divergence suspected");
    const finals = new Set(nodes.map((n) => resultOf(n)?.checksum));
    const mismatches = disagree.length;
    return {
        id: "r1",
        title: "R1: fault-free baseline",
        itPerS,
        figures: {
            r1_iterations_per_s: itPerS,
            r1_checksum_mismatches: mismatches,
            r1_divergence_suspected: suspected,
            r1_nodes_finished: exits.filter((e) => e.finished && e.code === 0).length,
        },
        checks: [
            check("0 checksum mismatches", mismatches === 0 && finals.size === 1, `${mismatches} of ${compared} iterations disagree; ${finals.size} final checksum(s)`),
            check("every node exits 0 at the run length", exits.every((e) => e.finished && e.code === 0), exits.map((e, i) => `node ${i}: ${e.finished ? `exit ${e.code}` : `stuck at ${headAt(nodes[i], Date.now())}, stopped`}`).join("; ")),
        ],
        notes: `${o.nodes} tiny-spsa nodes on loopback, ${o.iterations} iterations; the rate is from iteration ${WARMUP} to the last (first node to log each). "divergence suspected" lines (a proposer's checksum differing, or a commit that does not chain) are counted apart: ${suspected}.`,
    };
}
//# sourceMappingURL=baseline.js.map