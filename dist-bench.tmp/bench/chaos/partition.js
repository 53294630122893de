/**
 * R6 partition: 4 nodes, each in its own network namespace on one bridge (a hub namespace); a
 * bridge-family nftables table in the hub drops every frame between {0,1} and {2,3} for the
 * partition (a real network split, not the gossip-drop hook), then is deleted (the heal).
 * Measured: seconds from the heal until all four agree on the checksum at their latest common
 * iteration, and committed iterations of the winning side (the half whose pre-heal chain the
 * swarm ends on) that are not in the final chain. Root only; all traffic stays in the namespaces
 * this scenario makes, and they are deleted at the end.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { Node, tempDir } from "../../test/e2e/node-process.js";
import { check } from "./scenario.js";
import { loggedHashes, OPEN_ENDED, reach, sleep } from "./swarm-logs.js";
const tag = `ssp${process.pid % 100_000}`;
const HUB = `${tag}-hub`;
const ns = (i) => `${tag}-n${i}`;
const ip = (i) => `10.99.0.${i + 1}`;
const sh = (script) => execFileSync("bash", ["-euo", "pipefail", "-c", script], { stdio: ["ignore", "pipe", "pipe"] });
function setUp() {
    const lines = [`ip netns add ${HUB}`, `ip -n ${HUB} link set lo up`, `ip -n ${HUB} link add name br0 type bridge`, `ip -n ${HUB} link set br0 up`];
    for (let i = 0; i < 4; i++)
        lines.push(`ip netns add ${ns(i)}`, `ip -n ${ns(i)} link set lo up`, `ip -n ${ns(i)} link add name eth0 type veth peer name w${i} netns ${HUB}`, `ip -n ${HUB} link set w${i} master br0 up`, `ip -n ${ns(i)} addr add ${ip(i)}/24 dev eth0`, `ip -n ${ns(i)} link set eth0 up`);
    sh(lines.join("\n"));
}
function tearDown() {
    for (const n of [HUB, ...[0, 1, 2, 3].map(ns)])
        spawnSync("ip", ["netns", "del", n]);
}
const split = () => sh(`ip netns exec ${HUB} nft -f - <<'EOF'
table bridge split {
  chain forward {
    type filter hook forward priority 0;
    iifname { "w0", "w1" } oifname { "w2", "w3" } drop
    iifname { "w2", "w3" } oifname { "w0", "w1" } drop
  }
}
EOF`);
const heal = () => sh(`ip netns exec ${HUB} nft delete table bridge split`);
/** Why R6 cannot run here, or null. */
export function partitionUnavailable() {
    if (process.platform !== "linux")
        return "Linux network namespaces only";
    if (process.getuid?.() !== 0)
        return "needs root (network namespaces, nftables)";
    for (const tool of ["ip", "nft"])
        if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0)
            return `needs the ${tool} command`;
    return null;
}
export async function partition(o) {
    const why = partitionUnavailable();
    if (why)
        return { id: "r6", title: "R6: 2|2 partition, then heal", figures: {}, checks: [check("R6 could run", false, why)], notes: "Not run." };
    tearDown();
    setUp();
    const nodes = [];
    try {
        const launch = (i) => ({ prefix: ["ip", "netns", "exec", ns(i)], listen: `/ip4/${ip(i)}/tcp/4001` });
        nodes.push(new Node(await tempDir(), [...OPEN_ENDED, "--join-wait", "20000", "--min-peers", "3"], {}, launch(0)));
        const addr = await nodes[0].address();
        for (let i = 1; i < 4; i++)
            nodes.push(new Node(await tempDir(), [...OPEN_ENDED, "--bootstrap", addr], {}, launch(i)));
        await Promise.all(nodes.map((n) => reach(n, 30, 90_000)));
        split();
        const splitHead = Math.max(...nodes.map((n) => n.lines.findLast((l) => l.msg === "applied")?.iteration ?? 0));
        await sleep(o.partitionS * 1000);
        heal();
        const healAt = Date.now();
        const halves = [0, 2].map((a) => nodes.slice(a, a + 2));
        const headOf = (n) => n.lines.findLast((l) => l.msg === "applied")?.iteration ?? 0;
        const committed = halves.map((h) => Math.max(...h.map(headOf)) - splitHead);
        const preHeal = halves.map((h) => loggedHashes(h[0].dataDir));
        // Converged: all four logged the same checksum at their latest common iteration, past the heal head.
        const healHead = Math.max(...nodes.map(headOf));
        let convergeS = Number.POSITIVE_INFINITY;
        while (Date.now() - healAt < o.healWaitS * 1000) {
            await sleep(1000);
            const sums = nodes.map((n) => n.checksums());
            const common = [...sums[0].keys()].filter((it) => it > healHead && sums.every((m) => m.has(it)));
            const last = Math.max(-1, ...common);
            if (last >= 0 && new Set(sums.map((m) => m.get(last))).size === 1) {
                convergeS = (Date.now() - healAt) / 1000;
                break;
            }
        }
        for (const n of nodes)
            n.child.kill("SIGTERM");
        await Promise.all(nodes.map((n) => n.exit));
        const final = nodes.map((n) => loggedHashes(n.dataDir)).reduce((a, b) => (b.size > a.size ? b : a));
        const lostOf = (m) => [...m].filter(([it, h]) => it >= splitHead && final.has(it) && final.get(it) !== h).length;
        const lost = preHeal.map(lostOf);
        const winner = lost[0] <= lost[1] ? 0 : 1;
        const snapshots = nodes.reduce((k, n) => k + n.lines.filter((l) => typeof l.msg === "string" && l.msg.includes("snapshot") && l.msg !== "snapshot found in the DHT").length, 0);
        return {
            id: "r6",
            title: "R6: 2|2 partition, then heal",
            figures: {
                r6_converge_s: convergeS,
                r6_lost_iterations: lost[winner],
                r6_losing_side_lost_iterations: lost[1 - winner],
                r6_committed_during_partition_a: committed[0],
                r6_committed_during_partition_b: committed[1],
                r6_snapshot_lines: snapshots,
            },
            checks: [
                check("one chain after the heal", Number.isFinite(convergeS), Number.isFinite(convergeS) ? `all four agree ${convergeS.toFixed(0)} s after the heal` : `no agreement within ${o.healWaitS} s`),
                check("0 iterations lost from the winning side", lost[winner] === 0, `winning half lost ${lost[winner]}, the other ${lost[1 - winner]} (halves committed ${committed[0]} and ${committed[1]} during the split)`),
                // The decision rule (docs/architecture.md, "Partitions"): both sides keep training; the heal keeps one side's chain whole.
                check("both halves keep training during the split", committed.every((c) => c > 0), `halves committed ${committed.join(" and ")} iterations during the split`),
            ],
            notes: `4 tiny-spsa nodes, one per network namespace, on one bridge; split {0,1} | {2,3} at iteration ${splitHead} for ${o.partitionS} s by an nftables bridge table dropping frames between the halves, then healed (table deleted); converged = the four agree on the checksum at their latest common iteration; lost = iterations at or after the split whose commit in a half's pre-heal log is not the final chain's.`,
        };
    }
    finally {
        for (const n of nodes)
            if (n.child.exitCode === null && n.child.signalCode === null)
                n.child.kill("SIGKILL");
        await Promise.all(nodes.map((n) => n.exit));
        tearDown();
    }
}
//# sourceMappingURL=partition.js.map