/**
 * The spec of a run joined by id (`seedswarm node --run <runId>`): from our checkpoint of it, or
 * from the first peer that serves it (checked to hash to the runId).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { existsSync } from "node:fs";
import { SeedswarmError } from "../../protocol/errors.js";
import { type RunSpec, runIdOf } from "../../protocol/run-spec.js";
import type { SwarmNode } from "../network/libp2p.js";
import type { Logger } from "../ground/index.js";
import { loadCheckpoint } from "../store/checkpoint.js";
import { checkpointPath, previousCheckpointPath } from "../store/data-dir.js";
import { defaultSyncOptions, fetchRunSpec } from "./protocols.js";

export class SpecOfRunError extends SeedswarmError<"NODE_NO_SPEC"> {}

/** Peers asked for the spec at once: a burst of connections asks a few, then the next few. */
const SPEC_ASKS = 4;

/**
 * The spec of a run joined by id: from our checkpoint of it if we have one, else from the first
 * peer that serves it (checked to hash to the runId), waiting up to joinWaitMs for peers.
 */
export async function specOfRun(
libp2p: SwarmNode,
dataDir: string,
runId: string,
joinWaitMs: number,
log: Logger,
): Promise<RunSpec> {
  const path = checkpointPath(dataDir, runId);
  // Our checkpoint, or the one before it; an unreadable one is left to the resume (store/resume.ts), which falls back.
  for (const file of [path, previousCheckpointPath(path)]) {
    if (!existsSync(file)) continue;
    const cp = await loadCheckpoint(file).catch(() => null);
    if (cp && runIdOf(cp.spec) === runId) return cp.spec;
  }
  const waitMs = Math.max(joinWaitMs, 1000);
  const deadline = Date.now() + waitMs;
  const asked = new Set<string>();
  // Peers asked together (SPEC_ASKS at most at a time), each ask ending by the deadline: one at a
  // time at 10 s each, with the deadline checked after the round, a few silent peers held a join
  // by id for minutes (security review, finding 15).
  for (let left = waitMs; left > 0; left = deadline - Date.now()) {
    const fresh = libp2p.getPeers().filter((p) => !asked.has(p.toString())).slice(0, SPEC_ASKS);
    if (fresh.length === 0) {
      await sleep(Math.min(200, left));
      continue;
    }
    for (const p of fresh) asked.add(p.toString());
    const timeoutMs = Math.min(defaultSyncOptions.requestTimeoutMs, left);
    const asks = fresh.map(async (peer) => {
      try {
        const spec = await fetchRunSpec(libp2p, peer, runId, timeoutMs);
        log.info({ run: runId, peer: peer.toString(), name: spec.name }, "run spec fetched");
        return spec;
      } catch (err) {
        log.debug({ peer: peer.toString(), err: (err as Error).message }, "no run spec from peer");
        throw err;
      }
    });
    const spec = await Promise.any(asks).catch(() => null);
    if (spec) return spec;
  }
  throw new SpecOfRunError(
    "NODE_NO_SPEC",
    `no peer served the run spec of run ${runId} within ${waitMs} ms (asked ${asked.size}); check --bootstrap, or give --spec/--preset`,
    { runId, asked: asked.size },
  );
}
