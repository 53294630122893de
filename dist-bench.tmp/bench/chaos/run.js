/**
 * `npm run chaos [-- --short] [--only r1,r5] [--churn-minutes N]`: the reliability suite. Real
 * `seedswarm node` processes on loopback (and a tmpfs for the full disk), faults made with real
 * signals and a real full filesystem; writes docs/reliability.md and docs/reliability.json.
 * --short runs every scenario in about a minute each (the default is the issue's full length:
 * R1 500 iterations, R2 10 minutes of churn).
 */
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { cleanup } from "../../test/e2e/node-process.js";
import { writeReport } from "../report.js";
import { baseline } from "./baseline.js";
import { bitFlip } from "./bit-flip.js";
import { churn } from "./churn.js";
import { diskFaults } from "./disk-faults.js";
import { partition } from "./partition.js";
import { pause } from "./pause.js";
import { toSection } from "./scenario.js";
import { wholeSwarmRestart } from "./whole-swarm-restart.js";
const RELIABILITY = { name: "reliability", heading: "Reliability", command: "npm run chaos" };
const argv = process.argv.slice(2);
const flag = (name) => argv.indexOf(name);
const short = flag("--short") >= 0;
const churnMinutes = flag("--churn-minutes") >= 0 ? Number(argv[flag("--churn-minutes") + 1]) : short ? 1.5 : 10;
// R2 and R3 compare with R1: this run's, or (with --only) the one recorded in docs/reliability.json.
const recorded = join(import.meta.dirname, "..", "..", "..", "docs", "reliability.json");
let baselineItPerS = existsSync(recorded)
    ? (JSON.parse(readFileSync(recorded, "utf8")).r1_iterations_per_s ?? Number.NaN)
    : Number.NaN;
const SCENARIOS = {
    r1: async () => {
        const r = await baseline({ nodes: 4, iterations: short ? 200 : 500 });
        baselineItPerS = r.itPerS;
        return r;
    },
    r2: () => churn({ nodes: 4, durationS: churnMinutes * 60, killEveryS: short ? 20 : 30, restartAfterS: 10, baselineItPerS, seed: 1 }),
    r3: () => pause({ nodes: 4, deadlines: 3, afterS: short ? 10 : 20, baselineItPerS }),
    r5: () => wholeSwarmRestart({ nodes: 3, checkpointEvery: 20, killAt: short ? 45 : 150, after: short ? 10 : 30 }),
    r6: () => partition({ partitionS: short ? 20 : 60, healWaitS: short ? 60 : 120 }),
    r9: () => bitFlip({ nodes: 4, flipAt: 25, checkEvery: 10, iterations: 80 }),
    r11: () => diskFaults(),
};
const only = flag("--only") >= 0 ? argv[flag("--only") + 1].split(",") : Object.keys(SCENARIOS);
const unknown = only.filter((id) => !(id in SCENARIOS));
if (unknown.length > 0) {
    console.error(`✖ unknown scenario(s): ${unknown.join(", ")}; known: ${Object.keys(SCENARIOS).join(", ")}`);
    process.exit(2);
}
const command = `npm run chaos -- ${short ? "--short " : ""}--only`;
const done = [];
try {
    for (const id of only) {
        const t = performance.now();
        const loadBefore = loadavg()[0];
        console.error(`chaos: ${id} ...`);
        // A scenario that throws (a node that never came up) is reported as such; the rest still run.
        const r = await SCENARIOS[id]().catch((err) => ({
            id,
            title: `${id.toUpperCase()}: did not complete`,
            figures: {},
            checks: [{ name: "the scenario ran to the end", pass: false, detail: err.message }],
            notes: "The scenario threw before measuring; see the check.",
        }));
        const failed = r.checks.filter((c) => !c.pass).map((c) => c.name);
        console.error(`chaos: ${id} done in ${((performance.now() - t) / 1000).toFixed(0)} s: ${JSON.stringify(r.figures)}${failed.length ? `; not met: ${failed.join("; ")}` : ""}`);
        // Timing-sensitive figures depend on what else the machine runs: the load is part of the result.
        const section = toSection(r, `${command} ${id}`);
        const load = `_Load average (1 min) at the start ${loadBefore.toFixed(1)}, at the end ${loadavg()[0].toFixed(1)}, on ${cpus().length} cores._`;
        done.push({ ...section, markdown: `${section.markdown}\n\n${load}` });
    }
}
finally {
    await cleanup();
    await writeReport(done, RELIABILITY);
}
console.error("chaos: wrote docs/reliability.md and docs/reliability.json");
//# sourceMappingURL=run.js.map