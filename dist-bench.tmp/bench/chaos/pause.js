/**
 * R3 pause: 4 nodes; one is SIGSTOPped for a multiple of the round deadline (a frozen VM), then
 * SIGCONTed. Measured: the others' iterations/s during the pause against R1; after the thaw, the
 * rollbacks and fork switches the others make (each is a committed update undone: a stale or
 * foreign update applied), checksum disagreements, and whether the paused node catches up.
 */
import { PRESETS } from "../../protocol/presets.js";
import { startSwarm } from "../../test/e2e/node-process.js";
import { check } from "./scenario.js";
import { checksumDisagreements, OPEN_ENDED, rate, reach, sleep, swarmHeadAt } from "./swarm-logs.js";
/** Lines that say a node undid committed work or took another chain. */
const UNDO = ["switching to a better commit", "switching to a better fork", "repaired", "fork switched"];
export async function pause(o) {
    const deadlineMs = PRESETS["tiny-spsa"].roundTimeoutMs;
    const nodes = await startSwarm(o.nodes, OPEN_ENDED);
    await Promise.all(nodes.map((n) => reach(n, 30)));
    const frozen = nodes[o.nodes - 1];
    const others = nodes.slice(0, -1);
    const pausedAt = Date.now();
    frozen.child.kill("SIGSTOP");
    await sleep(o.deadlines * deadlineMs);
    const thawedAt = Date.now();
    frozen.child.kill("SIGCONT");
    await sleep(o.afterS * 1000);
    const endAt = Date.now();
    const during = rate(others, pausedAt, thawedAt);
    const ratio = during / o.baselineItPerS;
    const head = swarmHeadAt(others, endAt);
    const frozenHead = swarmHeadAt([frozen], endAt);
    // On the swarm's chain: the paused node's checksum equals the others' at the last iteration all logged.
    const sums = nodes.map((n) => n.checksums());
    const commonLast = Math.max(-1, ...[...sums[0].keys()].filter((it) => sums.every((m) => m.has(it))));
    const onChain = commonLast >= 0 && new Set(sums.map((m) => m.get(commonLast))).size === 1;
    const undone = others.reduce((k, n) => k + n.lines.filter((l) => UNDO.includes(l.msg ?? "") && l.time >= thawedAt).length, 0);
    const { iterations: disagree, compared } = checksumDisagreements(nodes);
    // The paused node noticed it slept past the deadline and checked with peers before proposing.
    const stalls = frozen.lines.filter((l) => l.msg === "process stalled past the round deadline; catching up before proposing").length;
    const caughtUp = frozen.lines.filter((l) => l.msg === "caught up after a stall").length;
    for (const n of nodes)
        n.child.kill("SIGTERM");
    await Promise.all(nodes.map((n) => n.exit));
    return {
        id: "r3",
        title: "R3: one node paused past the deadline",
        figures: {
            r3_throughput_during_pause_ratio: ratio,
            r3_updates_undone_after_thaw: undone,
            r3_checksum_mismatches: disagree.length,
            r3_paused_node_behind: head - frozenHead,
            r3_stalls_detected: stalls,
        },
        checks: [
            check("others keep >= 70% of R1 during the pause", ratio >= 0.7, `${during.toFixed(1)} it/s = ${(ratio * 100).toFixed(0)}% of R1`),
            check("0 stale or foreign updates applied after the thaw", undone === 0, `${undone} rollback/fork-switch/repair line(s) on the other nodes`),
            check("the paused node detects its stall and catches up before proposing", stalls >= 1 && caughtUp >= 1, `${stalls} stall line(s), ${caughtUp} catch-up line(s)`),
            check("replicas identical at every common iteration", disagree.length === 0, `${disagree.length} of ${compared} iterations disagree`),
            check(`the paused node is back on the swarm's chain within ${o.afterS} s`, Math.abs(head - frozenHead) <= 2 && onChain, `${head - frozenHead} iteration(s) behind the others at the end (negative: ahead, on a chain of its own); checksums at iteration ${commonLast} ${onChain ? "agree" : "differ"}`),
        ],
        notes: `${o.nodes} tiny-spsa nodes; at iteration 30 one is SIGSTOPped for ${o.deadlines} x the ${deadlineMs} ms round deadline, then SIGCONTed and watched for ${o.afterS} s.`,
    };
}
//# sourceMappingURL=pause.js.map