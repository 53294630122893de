import { prometheusMetrics } from "@libp2p/prometheus-metrics";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
/** The libp2p counter of bytes on every connection, labelled "global sent" / "global received". */
const LIBP2P_TRANSFER = "libp2p_data_transfer_bytes_total";
/**
 * Faults a node met and handled, each also one structured log line (observe/faults.ts): a stall
 * past the round deadline, a commit the chain rules rejected (its state rolled back), a peer
 * penalised, a state repair, a fork switch (one step back, or deeper), a snapshot adopted, a
 * contribution our audit or proof check found not to recompute, an author excluded by the chain,
 * an exclusion refused as a false accusation.
 */
export const FAULT_KINDS = [
    "stall",
    "commitRejected",
    "peerPenalised",
    "repair",
    "forkSwitch",
    "snapshotAdopted",
    "auditFailed",
    "authorExcluded",
    "falseAccusation",
];
/** Creates the registry and every metric; `collectDefault` adds process CPU, memory, GC, event loop. */
export function createMetrics(collectDefault = true) {
    const registry = new Registry();
    const registers = [registry];
    // libp2p's transfer counter adds what it saw since the last read on every read (calculated
    // metric), so reading through the registry keeps totals exact whoever reads first.
    const bytes = async () => {
        const metric = registry.getSingleMetric(LIBP2P_TRANSFER);
        if (!metric)
            return { in: 0, out: 0 };
        const { values } = await metric.get();
        const find = (label) => values.find((v) => v.labels.protocol === label)?.value ?? 0;
        return { in: find("global received"), out: find("global sent") };
    };
    const faultCounter = new Counter({
        name: "seedswarm_faults_total",
        help: "Faults met and handled, by kind (stall, commitRejected, peerPenalised, repair, forkSwitch, snapshotAdopted)",
        labelNames: ["kind"],
        registers,
    });
    const faults = async () => {
        const { values } = await faultCounter.get();
        const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0]));
        for (const v of values)
            if (FAULT_KINDS.includes(v.labels.kind))
                counts[v.labels.kind] = v.value;
        return counts;
    };
    const byteCounter = (name, help, pick) => new Counter({
        name,
        help,
        registers,
        async collect() {
            this.reset();
            this.inc(pick(await bytes()));
        },
    });
    byteCounter("seedswarm_bytes_received_total", "Bytes received on all libp2p connections", (b) => b.in);
    byteCounter("seedswarm_bytes_sent_total", "Bytes sent on all libp2p connections", (b) => b.out);
    return {
        registry,
        libp2p: prometheusMetrics({
            registry,
            collectDefaultMetrics: collectDefault,
            // The default (false) resets the module's metric cache, which is keyed by name only: a
            // second daemon in one process then registers fresh metrics in its own registry instead of
            // reusing the first one's. (It also clears prom-client's global registry, which we never use.)
            preserveExistingMetrics: false,
        }),
        iterationsApplied: new Counter({
            name: "seedswarm_iterations_applied_total",
            help: "Commits applied (iterations), including those replayed while catching up",
            registers,
        }),
        iteration: new Gauge({ name: "seedswarm_iteration", help: "Next iteration to apply (the head)", registers }),
        loss: new Gauge({
            name: "seedswarm_loss",
            help: "This node's last measured training loss (mean over its perturbations' minibatches)",
            registers,
        }),
        accuracy: new Gauge({
            name: "seedswarm_accuracy",
            help: "Test accuracy on the evaluation subset at the last evaluation",
            registers,
        }),
        peers: new Gauge({ name: "seedswarm_peers", help: "Connected peers subscribed to the run", registers }),
        commitsProposed: new Counter({
            name: "seedswarm_commits_proposed_total",
            help: "Commits this node published as proposer",
            registers,
        }),
        checksumChecks: new Counter({
            name: "seedswarm_checksum_checks_total",
            help: "Checksum comparisons with peers (each peer answer counts once)",
            registers,
        }),
        checksumMismatches: new Counter({
            name: "seedswarm_checksum_mismatches_total",
            help: "Peer answers or commits whose checksum differed from ours",
            registers,
        }),
        repairs: new Counter({
            name: "seedswarm_repairs_total",
            help: "State repairs from a snapshot peers agree on",
            registers,
        }),
        gossipValidated: new Counter({
            name: "seedswarm_gossip_validated_total",
            help: "Gossip messages that reached validation, by kind, verdict and code",
            labelNames: ["kind", "verdict", "code"],
            registers,
        }),
        syncRequests: new Counter({
            name: "seedswarm_sync_requests_total",
            help: "Sync requests received, by protocol and outcome",
            labelNames: ["protocol", "outcome"],
            registers,
        }),
        roundSeconds: new Histogram({
            name: "seedswarm_round_seconds",
            help: "Time from a round's start to applying its commit",
            // Rounds last from milliseconds (tiny runs) to a round timeout of seconds.
            buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
            registers,
        }),
        fault: (kind) => faultCounter.inc({ kind }),
        faults,
        bytes,
    };
}
//# sourceMappingURL=metrics.js.map