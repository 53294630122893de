/**
 * The data directory's layout, every path in one place:
 *
 *   <data-dir>/identity.key                      the node key (stable peer id across restarts)
 *   <data-dir>/runs/<runId[0:16]>/checkpoint.ssck  a run's last checkpoint
 *   <data-dir>/runs/<runId[0:16]>/commits.jsonl    its applied commits (replay, serving after a restart)
 *   <data-dir>/metrics/<runId>.jsonl             its metrics log (plots, comparisons)
 */
import { join } from "node:path";

export const IDENTITY_FILE = "identity.key";

/** Where the identity key lives under a data directory. */
export function identityPath(dataDir: string): string {
  return join(dataDir, IDENTITY_FILE);
}

/** The folder of one run's files. */
export function runDir(dataDir: string, runId: string): string {
  return join(dataDir, "runs", runId.slice(0, 16));
}

/** Where a run's checkpoint lives under a data directory. */
export function checkpointPath(dataDir: string, runId: string): string {
  return join(runDir(dataDir, runId), "checkpoint.ssck");
}

/** Where a run's commit log lives. */
export function commitLogPath(dataDir: string, runId: string): string {
  return join(runDir(dataDir, runId), "commits.jsonl");
}

/** Where a run's metrics log lives. */
export function metricsLogPath(dataDir: string, runId: string): string {
  return join(dataDir, "metrics", `${runId}.jsonl`);
}
