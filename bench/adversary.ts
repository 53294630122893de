/**
 * `npm run bench -- --only adversary`: the swarm against hostile peers (issue 44, the security
 * review's findings), with real node processes on loopback and real hostile libp2p peers:
 *   - censor: 3 honest nodes and one that, whenever it may propose, commits at once with its own
 *     entry only (SEEDSWARM_FAULT=censor): the share of commits holding an honest entry;
 *   - Sybil crowd: 3 honest nodes and 1,024 Ed25519 identities gossiping a valid contribution each
 *     for every iteration, claiming the earliest join time: the share of commits holding every
 *     honest author, and the honest rate against the same run without them.
 * SEEDSWARM_BENCH_ADVERSARY_ITERATIONS sets the run length (default: tiny-spsa's 200).
 */
import { AUDITION_EVERY, NEWCOMER_SLOTS, PROBATION, PROPOSER_WINDOW, PROVEN_FROM } from "../node/chain/admission.js";
import { PRESETS } from "../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../protocol/run-spec.js";
import { admissionFigures, finalChain } from "../test/e2e/admission-analysis.js";
import { cleanup, type Node, startSwarm } from "../test/e2e/node-process.js";
import { startSybilCrowd } from "../test/e2e/sybil-crowd.js";
import type { Section } from "./report.js";

const peerIdOf = async (n: Node) => String((await n.waitFor((l) => l.msg === "node started", 60_000, "start")).peerId);

/** Iterations per second of `n` over its applied iterations (from its log's times). */
function rate(n: Node): number {
  const applied = n.lines.filter((l) => l.msg === "applied" && typeof l.time === "number");
  if (applied.length < 2) return 0;
  const first = applied[0];
  const last = applied[applied.length - 1];
  return (Number(last.iteration) - Number(first.iteration)) / ((Number(last.time) - Number(first.time)) / 1000);
}

async function finish(nodes: readonly Node[], honest: readonly Node[]): Promise<void> {
  const exits = await Promise.all(honest.map((n) => n.exit));
  for (const n of nodes) if (n.child.exitCode === null) n.child.kill("SIGKILL");
  if (exits.some((e) => e.code !== 0)) throw new Error(`adversary bench: an honest node exited ${exits.map((e) => e.code).join(", ")}`);
}

async function censorRun(iterations: number) {
  const nodes = await startSwarm(4, ["--stop-at", String(iterations)], [{}, {}, {}, { SEEDSWARM_FAULT: "censor" }]);
  const ids = await Promise.all(nodes.map(peerIdOf));
  await finish(nodes, nodes.slice(0, 3));
  const chain = finalChain(nodes[0]);
  const censored = chain.filter((c) => c.proposer === ids[3] && c.entries.every((e) => e.author === ids[3])).length;
  return { ...admissionFigures(chain, new Set(ids.slice(0, 3)), new Set([ids[3]]), 1), censored, rate: rate(nodes[0]) };
}

async function crowdRun(iterations: number, crowdSize: number) {
  const spec = parseRunSpec(PRESETS["tiny-spsa"]);
  const nodes = await startSwarm(3, ["--stop-at", String(iterations)]);
  const ids = await Promise.all(nodes.map(peerIdOf));
  const crowd = crowdSize > 0 ? await startSybilCrowd(nodes, runIdOf(spec), crowdSize, spec.algorithm.kind === "spsa" ? spec.algorithm.perturbations : 8) : null;
  await finish(nodes, nodes);
  await crowd?.stop();
  const chain = finalChain(nodes[0]);
  const identical = new Set(nodes.map((n) => n.result().checksum)).size === 1;
  return { ...admissionFigures(chain, new Set(ids), crowd?.ids ?? new Set(), 1), rate: rate(nodes[0]), sent: crowd?.counts.sent ?? 0, identical };
}

export async function adversarySection(): Promise<Section> {
  const iterations = Number(process.env.SEEDSWARM_BENCH_ADVERSARY_ITERATIONS ?? 200);
  try {
    const censor = await censorRun(iterations);
    const control = await crowdRun(iterations, 0);
    const crowd = await crowdRun(iterations, 1024);
    const f3 = (x: number) => x.toFixed(3);
    return {
      id: "adversary",
      title: "Adversaries: a censoring proposer and a crowd of free identities (issue 44)",
      command: "node dist/bench/run.js --only adversary",
      markdown: `Real \`seedswarm node\` processes on loopback train \`tiny-spsa\` for ${iterations} iterations with real hostile peers. Admission rules (node/chain/admission.ts): members are the authors of the last ${PROPOSER_WINDOW} commits; a commit holds every usable member entry and at most ${NEWCOMER_SLOTS} newcomers (picked by H(runId, t, author)); the proposers of the window's commits rank first from iteration ${PROVEN_FROM}, and once every ${AUDITION_EVERY} iterations the best other senior member does; members witnessed for less than ${PROBATION} iterations rank after the others; a proposer whose commit kept at most half of the previous commit's authors ranks after every author it left out for the next round, and after the passed-over members for ${PROPOSER_WINDOW} rounds once a left-out author comes back. Shares are over one honest node's final chain from iteration 1.

| run | commits | with an honest entry | with every honest author | most newcomers in a commit | hostile entries | honest iterations/s |
|---|---|---|---|---|---|---|
| censor (3 honest + 1 that commits alone whenever it may propose; it did ${censor.censored} times) | ${censor.commits} | ${f3(censor.anyHonest)} | ${f3(censor.allHonest)} | ${censor.maxNewcomers} | ${censor.hostileEntries} | ${censor.rate.toFixed(1)} |
| control (3 honest) | ${control.commits} | ${f3(control.anyHonest)} | ${f3(control.allHonest)} | ${control.maxNewcomers} | 0 | ${control.rate.toFixed(1)} |
| Sybil crowd (3 honest + 1,024 identities at the earliest join time; ${crowd.sent} contributions sent) | ${crowd.commits} | ${f3(crowd.anyHonest)} | ${f3(crowd.allHonest)} | ${crowd.maxNewcomers} | ${crowd.hostileEntries} | ${crowd.rate.toFixed(1)} |

Targets: \`censor_honest_share\` >= 0.9 (before: 54 of 1,570 commits held an honest entry), \`sybil_crowd_honest_share\` 1.0, \`sybil_crowd_rate_ratio\` >= 0.5 (before: about 1/256 of the control rate). Honest replicas identical under the crowd: ${crowd.identical ? "yes" : "no"}.`,
      figures: {
        censor_honest_share: censor.anyHonest,
        sybil_crowd_honest_share: crowd.allHonest,
        sybil_crowd_rate_ratio: control.rate > 0 ? crowd.rate / control.rate : 0,
        sybil_crowd_max_newcomers: crowd.maxNewcomers,
      },
    };
  } finally {
    await cleanup();
  }
}
