/**
 * R2 churn: 4 nodes; every `killEveryS` a random live node is SIGKILLed and restarted
 * `restartAfterS` later, alternately with its data dir and empty (a new identity, as a reclaimed
 * spot VM). Measured: committed iterations lost (committed by some node, not in the chain the
 * swarm ends on), checksum disagreements at common iterations, the rejoin time of each restart
 * (spawn to applying the iteration the swarm was at), and throughput against R1.
 */
import { Node, startSwarm, tempDir } from "../../test/e2e/node-process.js";
import { check } from "./scenario.js";
import { checksumDisagreements, loggedHashes, OPEN_ENDED, percentile, rate, sleep, swarmHeadAt } from "./swarm-logs.js";
/** A small seeded generator (mulberry32): the same seed picks the same victims. */
function seeded(seed) {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
export async function churn(o) {
    const random = seeded(o.seed);
    const live = await startSwarm(o.nodes, OPEN_ENDED);
    const all = [...live];
    await Promise.all(live.map((n) => n.waitFor((l) => l.msg === "applied", 60_000, "first iteration")));
    const start = Date.now();
    const end = start + o.durationS * 1000;
    /** Commit logs read right after each kill: what the killed node had committed. */
    const killedLogs = [];
    const rejoins = [];
    const pending = [];
    const failures = [];
    let restarts = 0;
    while (Date.now() + o.killEveryS * 1000 <= end) {
        await sleep(o.killEveryS * 1000);
        const victim = live.splice(Math.floor(random() * live.length), 1)[0];
        victim.child.kill("SIGKILL");
        await victim.exit;
        killedLogs.push(loggedHashes(victim.dataDir));
        const withDir = restarts % 2 === 0;
        restarts += 1;
        pending.push((async () => {
            await sleep(o.restartAfterS * 1000);
            const addr = await live[0].address();
            const dir = withDir ? victim.dataDir : await tempDir();
            const spawnAt = Date.now();
            const target = swarmHeadAt(live, spawnAt);
            const n = new Node(dir, [...OPEN_ENDED, "--bootstrap", addr]);
            all.push(n);
            live.push(n);
            const l = await n.waitFor((x) => x.msg === "applied" && (x.iteration ?? 0) >= target, 120_000, "rejoin").catch(() => null);
            rejoins.push({ s: l ? (l.time - spawnAt) / 1000 : Number.POSITIVE_INFINITY, withDir });
        })().catch((err) => {
            // A restart that never came up counts as a rejoin that never happened, not a crash of the suite.
            failures.push(err.message);
            rejoins.push({ s: Number.POSITIVE_INFINITY, withDir });
        }));
    }
    await Promise.all(pending);
    const stopAt = Date.now();
    const itPerS = rate(all, start, stopAt);
    for (const n of live)
        n.child.kill("SIGTERM");
    await Promise.all(live.map((n) => n.exit));
    // The chain the swarm ends on: the longest final log of the nodes still running at the end.
    const finals = live.map((n) => loggedHashes(n.dataDir));
    const ref = finals.reduce((a, b) => (b.size > a.size ? b : a));
    const lost = new Set();
    for (const m of [...killedLogs, ...finals])
        for (const [it, h] of m)
            if (ref.has(it) && ref.get(it) !== h)
                lost.add(it);
    const { iterations: disagree, compared } = checksumDisagreements(all);
    const times = rejoins.map((r) => r.s);
    const p95 = percentile(times, 95);
    const ratio = itPerS / o.baselineItPerS;
    return {
        id: "r2",
        title: "R2: churn",
        figures: {
            r2_lost_iterations: lost.size,
            r2_rejoin_p95_s: p95,
            r2_throughput_ratio: ratio,
            r2_restarts: restarts,
            r2_checksum_mismatches: disagree.length,
            r2_iterations_per_s: itPerS,
        },
        checks: [
            check("0 committed iterations lost", lost.size === 0, `${lost.size} lost${lost.size ? `: ${[...lost].slice(0, 10).join(", ")}` : ""}`),
            check("replicas identical at every common iteration", disagree.length === 0, `${disagree.length} of ${compared} iterations disagree`),
            check("rejoin p95 <= 20 s", p95 <= 20, `p95 ${p95.toFixed(1)} s over ${times.length} restarts (with dir: ${rejoins.filter((r) => r.withDir).map((r) => r.s.toFixed(1)).join(", ")}; empty: ${rejoins.filter((r) => !r.withDir).map((r) => r.s.toFixed(1)).join(", ")})`),
            check("throughput >= 80% of R1", ratio >= 0.8, `${itPerS.toFixed(1)} it/s = ${(ratio * 100).toFixed(0)}% of R1`),
        ],
        notes: `${failures.length ? `Restarts that failed: ${failures.join("; ")}. ` : ""}${o.nodes} tiny-spsa nodes for ${o.durationS} s; every ${o.killEveryS} s a random live node (seed ${o.seed}) is SIGKILLed and restarted ${o.restartAfterS} s later, alternately from its data dir and empty. Lost: iterations for which a commit log (read right after each kill, and at the end) holds another commit than the chain the swarm ends on. Rejoin: spawn to applying the iteration the swarm was at when spawned.`,
    };
}
//# sourceMappingURL=churn.js.map