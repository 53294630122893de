/**
 * One training step with networking off, as a process of its own (for the networking-overhead
 * benchmark, where three of these run at once like the three networked nodes): one contribution
 * computed, three applied. Prints {"cpuMsPerIteration": ...}.
 *   node dist/bench/step-worker.js <spec.json> <iterations>
 */
import { readFileSync } from "node:fs";
import { localAuthors } from "../node/local/local-trainer.js";
import { parseRunSpecJson } from "../protocol/run-spec.js";
import { useBackend } from "../training/engine.js";
import { initialReplica, openRun } from "../training/run-context.js";
const [specPath, itersArg] = process.argv.slice(2);
await useBackend("wasm");
const spec = parseRunSpecJson(readFileSync(specPath, "utf8"), specPath);
const run = await openRun(spec);
const replica = initialReplica(run);
const [me, x, y] = localAuthors(3);
const fake = new Uint8Array(run.algorithm.maxPayloadBytes).fill(85);
const step = () => {
    const own = run.algorithm.contribute(replica, me);
    replica.applyIteration(run.algorithm, [
        { author: me, payload: own },
        { author: x, payload: fake },
        { author: y, payload: fake },
    ]);
};
for (let i = 0; i < 20; i++)
    step();
const n = Number(itersArg);
const c0 = process.cpuUsage();
for (let i = 0; i < n; i++)
    step();
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ cpuMsPerIteration: (c.user + c.system) / 1000 / n }));
//# sourceMappingURL=step-worker.js.map