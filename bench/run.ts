/**
 * `npm run bench [-- --only id,id]`: runs the benchmark sections and writes docs/benchmarks.md
 * and docs/benchmarks.json.
 */

import { adversarySection } from "./adversary.js";
import { adversarySections } from "./adversary-sections.js";
import { byzantineSection } from "./byzantine.js";
import { clipSection } from "./clip.js";
import { dockerSection } from "./docker.js";
import { binarySection } from "./binary.js";
import { fuzzSection } from "./fuzz.js";
import { gpuSection } from "./gpu.js";
import { historySection } from "./history.js";
import {
  marketplaceEfficiencySection,
  marketplaceMnistSection,
  marketplaceNodesSection,
} from "./marketplace.js";
import { lmUpdateSection } from "./lm-update.js";
import { lmDemoSection } from "./lm-demo.js";
import { lmSection } from "./lm.js";
import { lmCpuSection } from "./lm-cpu.js";
import { lmEngineSection } from "./lm-engine.js";
import { lowrankSection } from "./lowrank.js";
import { type Section, writeReport } from "./report.js";
import { speedupSection, stragglerSection } from "./speedup.js";
import { joinSection, scalingSection, wireSection } from "./swarm.js";
import { costSection, forwardSection, mnistSection } from "./training.js";
import { verifySection } from "./verify.js";

const SECTIONS: Record<string, () => Promise<Section>> = {
  forward: forwardSection,
  cost: costSection,
  mnist: mnistSection,
  "lm-update": lmUpdateSection,
  wire: wireSection,
  join: joinSection,
  scaling: scalingSection,
  speedup: speedupSection,
  straggler: stragglerSection,
  "market-efficiency": marketplaceEfficiencySection,
  "market-mnist": marketplaceMnistSection,
  "market-nodes": marketplaceNodesSection,
  docker: dockerSection,
  lm: lmSection,
  "lm-cpu": lmCpuSection,
  "lm-engine": lmEngineSection,
  "lm-demo": lmDemoSection,
  binary: binarySection,
  verify: verifySection,
  fuzz: fuzzSection,
  history: historySection,
  gpu: gpuSection,
  lowrank: lowrankSection,
  clip: clipSection,
  byzantine: byzantineSection,
  adversary: adversarySection,
  ...adversarySections,
};

const onlyIdx = process.argv.indexOf("--only");
const only = onlyIdx >= 0 ? process.argv[onlyIdx + 1].split(",") : Object.keys(SECTIONS);
const unknown = only.filter((id) => !(id in SECTIONS));
if (unknown.length > 0) {
  console.error(
    `✖ unknown benchmark section(s): ${unknown.join(", ")}; known: ${Object.keys(SECTIONS).join(", ")}`,
  );
  process.exit(2);
}
const done: Section[] = [];
for (const id of only) {
  const t = performance.now();
  console.error(`bench: ${id} ...`);
  const s = await SECTIONS[id]();
  console.error(
    `bench: ${id} done in ${((performance.now() - t) / 1000).toFixed(1)} s: ${JSON.stringify(s.figures)}`,
  );
  done.push(s);
}
await writeReport(done);
console.error("bench: wrote docs/benchmarks.md and docs/benchmarks.json");
