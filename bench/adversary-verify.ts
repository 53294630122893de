/**
 * Finding 5 with real node processes (test/e2e/verify-flood.ts): two `seedswarm node` processes
 * on tiny-spsa, once alone (control) and once with a hostile peer that publishes 10 rank
 * variants of a commit per honest iteration (at most 10 bursts a second), heartbeats claiming
 * head + 5 every 100 ms, and serves a static reply of 64 pre-signed commits of 64 entries on
 * /commits. Figures: the victims' rate against the control, and the share of a core their CPU
 * used (from /proc/<pid>/stat) over the run.
 *
 * SEEDSWARM_BENCH_VERIFY_ITERATIONS sets the run length (default 300).
 */
import { cleanup } from "../test/e2e/node-process.js";
import { verifyFlood } from "../test/e2e/verify-flood.js";

export async function verifyFloodFigures(): Promise<{ figures: Record<string, number>; markdown: string }> {
  const stopAt = Number(process.env.SEEDSWARM_BENCH_VERIFY_ITERATIONS ?? 300);
  try {
    const control = await verifyFlood({ stopAt, attack: false });
    await cleanup();
    const attacked = await verifyFlood({ stopAt, attack: true });
    const share = (o: typeof control) => o.cpu.reduce((a, b) => a + b, 0) / o.cpu.length / o.seconds;
    const figures = {
      verify_flood_iterations: stopAt,
      verify_flood_control_rate: control.rate,
      verify_flood_rate: attacked.rate,
      verify_flood_rate_ratio: attacked.rate / control.rate,
      verify_flood_control_cpu_share: share(control),
      verify_flood_victim_cpu_share: share(attacked),
      verify_flood_cpu_per_iteration_ratio: attacked.cpu.reduce((a, b) => a + b, 0) / control.cpu.reduce((a, b) => a + b, 0),
      verify_flood_variants: attacked.variants,
      verify_flood_commits_requests: attacked.requests,
    };
    const markdown = `Two \`seedswarm node\` processes train \`tiny-spsa\` to iteration ${stopAt}, alone and then with the hostile peer of finding 5 (\`test/e2e/verify-flood.ts\`): on each honest commit it publishes 10 commits for the next iteration chained onto it that differ only in rank, over 64 entries by Sybil keys signed for it (${attacked.variants} in all), heartbeats at head + 5 every 100 ms (${attacked.heartbeats}), and answers /commits (${attacked.requests} requests) with 64 pre-signed commits of 64 entries. CPU: utime + stime from /proc/<pid>/stat, per victim, over the run's wall time.

| run | iterations/s | CPU share of a core per victim | wall (s) |
|---|---|---|---|
| control | ${control.rate.toFixed(1)} | ${share(control).toFixed(2)} | ${control.seconds.toFixed(1)} |
| attacked | ${attacked.rate.toFixed(1)} | ${share(attacked).toFixed(2)} | ${attacked.seconds.toFixed(1)} |

Targets: CPU share <= 0.2 and rate >= 0.8 of the control.`;
    return { figures, markdown };
  } finally {
    await cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { figures, markdown } = await verifyFloodFigures();
  process.stdout.write(`${markdown}\n\n${JSON.stringify(figures, null, 2)}\n`);
}
