/**
 * What the chaos scenarios read back from real nodes: their commit logs on disk (read-only: a
 * scenario must not repair what the node is meant to repair) and their JSON log lines (pino
 * stamps each with `time`, ms since the epoch).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
/** Iteration -> hash of the commit a data dir's commit log holds for it (the last word for each). */
export function loggedHashes(dataDir) {
    const out = new Map();
    const runs = join(dataDir, "runs");
    if (!existsSync(runs))
        return out;
    for (const run of readdirSync(runs)) {
        const path = join(runs, run, "commits.jsonl");
        if (!existsSync(path))
            continue;
        for (const text of readFileSync(path, "utf8").split("\n")) {
            try {
                const l = JSON.parse(text);
                out.set(l.iteration, l.hash);
            }
            catch {
                // A torn line: the node cuts it at start.
            }
        }
    }
    return out;
}
/** The run folder of a data dir (one run per dir in these scenarios). */
export function runFolder(dataDir) {
    const runs = join(dataDir, "runs");
    return join(runs, readdirSync(runs)[0]);
}
const isApplied = (l) => l.msg === "applied";
/** The node's head (iterations applied) at time `t` (ms since the epoch), from its "applied" lines. */
export function headAt(node, t) {
    let head = 0;
    for (const l of node.lines)
        if (isApplied(l) && l.time <= t)
            head = Math.max(head, l.iteration ?? 0);
    return head;
}
/** The highest head any of `nodes` reached by time `t`: the swarm's progress. */
export function swarmHeadAt(nodes, t) {
    return Math.max(0, ...nodes.map((n) => headAt(n, t)));
}
/** Iterations per second the swarm committed between two times. */
export function rate(nodes, from, to) {
    return (swarmHeadAt(nodes, to) - swarmHeadAt(nodes, from)) / ((to - from) / 1000);
}
/**
 * Iterations at which two of `nodes` logged different checksums after applying (each node's last
 * word for the iteration: a one-step fork switch logs a second line), and how many were compared.
 */
export function checksumDisagreements(nodes, after = -1) {
    const byIteration = new Map();
    for (const n of nodes)
        for (const [it, sum] of n.checksums()) {
            if (it <= after)
                continue;
            const s = byIteration.get(it) ?? new Set();
            s.add(sum);
            byIteration.set(it, s);
        }
    const iterations = [...byIteration].filter(([, s]) => s.size > 1).map(([it]) => it);
    return { iterations: iterations.sort((a, b) => a - b), compared: byIteration.size };
}
/** Count of `msg` lines across nodes. */
export function countLines(nodes, msg) {
    return nodes.reduce((k, n) => k + n.lines.filter((l) => l.msg === msg).length, 0);
}
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Waits until `node` logged an applied iteration >= `iteration`. */
export function reach(node, iteration, timeoutMs = 60_000) {
    return node.waitFor((l) => isApplied(l) && (l.iteration ?? 0) >= iteration, timeoutMs, `iteration ${iteration}`);
}
/** Nodes' process arguments for an open-ended run (the scenario decides when it ends). */
export const OPEN_ENDED = ["--iterations", "1000000", "--stop-at", "1000000"];
/** The p-th percentile (0..100) of `xs` (nearest rank); NaN when empty. */
export function percentile(xs, p) {
    if (xs.length === 0)
        return Number.NaN;
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
/**
 * Waits up to `ms` for every node to exit by itself (a run with --stop-at); stragglers (a node
 * stuck behind the swarm never reaches the run length) get SIGTERM, then SIGKILL 10 s later.
 * Returns per node whether it finished by itself and its exit code.
 */
export async function exitsWithin(nodes, ms) {
    const deadline = sleep(ms).then(() => "late");
    return Promise.all(nodes.map(async (n) => {
        const first = await Promise.race([n.exit, deadline]);
        if (first !== "late")
            return { finished: true, code: first.code };
        n.child.kill("SIGTERM");
        const stopped = await Promise.race([n.exit, sleep(10_000).then(() => null)]);
        if (!stopped)
            n.child.kill("SIGKILL");
        return { finished: false, code: (stopped ?? (await n.exit)).code };
    }));
}
/** The node's final result line, if it printed one. */
export function resultOf(n) {
    return n.lines.find((l) => typeof l.peerId === "string" && l.msg === undefined);
}
//# sourceMappingURL=swarm-logs.js.map