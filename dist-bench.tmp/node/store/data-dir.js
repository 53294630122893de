/**
 * The data directory's layout, every path in one place:
 *
 *   <data-dir>/identity.key                      the node key (stable peer id across restarts)
 *   <data-dir>/runs/<runId[0:16]>/checkpoint.ssck  a run's last checkpoint
 *   <data-dir>/runs/<runId[0:16]>/checkpoint.ssck.prev  the one before (the fallback if the last is unreadable)
 *   <data-dir>/runs/<runId[0:16]>/checkpoint.ssck.corrupt  an unreadable one, moved aside at start (post-mortem)
 *   <data-dir>/runs/<runId[0:16]>/commits.jsonl    its applied commits (replay, serving after a restart)
 *   <data-dir>/runs/<runId[0:16]>/peers.json       where its peers listened at the last checkpoint (dialled after a restart)
 *   <data-dir>/metrics/<runId>.jsonl             its metrics log (plots, comparisons)
 */
import { join } from "node:path";
export const IDENTITY_FILE = "identity.key";
/** Where the identity key lives under a data directory. */
export function identityPath(dataDir) {
    return join(dataDir, IDENTITY_FILE);
}
/** The folder of one run's files. */
export function runDir(dataDir, runId) {
    return join(dataDir, "runs", runId.slice(0, 16));
}
/** Where a run's checkpoint lives under a data directory. */
export function checkpointPath(dataDir, runId) {
    return join(runDir(dataDir, runId), "checkpoint.ssck");
}
/** Where the checkpoint before the one at `path` is kept. */
export function previousCheckpointPath(path) {
    return `${path}.prev`;
}
/** Where an unreadable checkpoint is moved at start, so the next save does not rotate it into the fallback. */
export function corruptCheckpointPath(path) {
    return `${path}.corrupt`;
}
/** Where a run's commit log lives. */
export function commitLogPath(dataDir, runId) {
    return join(runDir(dataDir, runId), "commits.jsonl");
}
/** Where the addresses of a run's peers are kept between restarts. */
export function knownPeersPath(dataDir, runId) {
    return join(runDir(dataDir, runId), "peers.json");
}
/** Where a run's metrics log lives. */
export function metricsLogPath(dataDir, runId) {
    return join(dataDir, "metrics", `${runId}.jsonl`);
}
//# sourceMappingURL=data-dir.js.map