/**
 * The spec of a run joined by id (`seedswarm node --run <runId>`): from our checkpoint of it, or
 * from the first peer that serves it (checked to hash to the runId).
 */
import { existsSync } from "node:fs";
import { SeedswarmError } from "../../protocol/errors.js";
import { runIdOf } from "../../protocol/run-spec.js";
import { loadCheckpoint } from "../store/checkpoint.js";
import { checkpointPath, previousCheckpointPath } from "../store/data-dir.js";
import { fetchRunSpec } from "./protocols.js";
export class SpecOfRunError extends SeedswarmError {
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/**
 * The spec of a run joined by id: from our checkpoint of it if we have one, else from the first
 * peer that serves it (checked to hash to the runId), waiting up to joinWaitMs for peers.
 */
export async function specOfRun(libp2p, dataDir, runId, joinWaitMs, log) {
    const path = checkpointPath(dataDir, runId);
    // Our checkpoint, or the one before it; an unreadable one is left to the resume (store/resume.ts), which falls back.
    for (const file of [path, previousCheckpointPath(path)]) {
        if (!existsSync(file))
            continue;
        const cp = await loadCheckpoint(file).catch(() => null);
        if (cp && runIdOf(cp.spec) === runId)
            return cp.spec;
    }
    const waitMs = Math.max(joinWaitMs, 1000);
    const deadline = Date.now() + waitMs;
    const asked = new Set();
    for (;;) {
        for (const peer of libp2p.getPeers()) {
            if (asked.has(peer.toString()))
                continue;
            asked.add(peer.toString());
            try {
                const spec = await fetchRunSpec(libp2p, peer, runId);
                log.info({ run: runId, peer: peer.toString(), name: spec.name }, "run spec fetched");
                return spec;
            }
            catch (err) {
                log.debug({ peer: peer.toString(), err: err.message }, "no run spec from peer");
            }
        }
        if (Date.now() > deadline)
            break;
        await sleep(200);
    }
    throw new SpecOfRunError("NODE_NO_SPEC", `no peer served the run spec of run ${runId} within ${waitMs} ms (asked ${asked.size}); check --bootstrap, or give --spec/--preset`, { runId, asked: asked.size });
}
//# sourceMappingURL=spec-of-run.js.map