import { DEFAULT_AUDIT_BUDGET } from "./chain/audits.js";
import { defaultNetworkOptions } from "./network/network-options.js";
export const defaultNodeOptions = {
    backend: "auto",
    network: defaultNetworkOptions,
    // The brief's C: one random-peer comparison per 10 iterations costs one small request.
    checkEvery: 10,
    // Long enough for bootstrap dials and a first heartbeat; short enough for a lone first node.
    joinWaitMs: 3000,
    // Start with whoever is there: a run must not need a quorum to make progress.
    minPeers: 0,
    // Spot instances give 30 s to 2 min of notice; a checkpoint takes milliseconds.
    leaveDeadlineMs: 10_000,
    checkpointEvery: 100,
    // Off: an operator opts in, on loopback unless they say otherwise (the CLI checks).
    http: null,
    // Every 50 iterations costs ~1% of a tiny round and well under that of an MNIST one.
    evalEvery: 50,
    evalLimit: 1000,
    // Issue 15's budget: audits cost at most a tenth of what training and networking cost.
    auditBudget: DEFAULT_AUDIT_BUDGET,
};
//# sourceMappingURL=node-options.js.map