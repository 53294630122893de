/**
 * `docker` section: the CPU image and the compose swarm on a real Docker engine (docker/smoke.sh,
 * cold build: no layer cache), and the NAT namespace test (test/e2e/nat.test.ts). Needs root
 * and an engine that smoke.sh can find or start; throws saying which is missing otherwise.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt } from "./report.js";
const ROOT = join(import.meta.dirname, "..", "..");
/** Runs `cmd` with the report path in `envVar`, streaming its output; returns the report. */
function runWithReport(cmd, envVar, dir) {
    const file = join(dir, `${envVar}.json`);
    const r = spawnSync(cmd[0], cmd.slice(1), { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, [envVar]: file } });
    if (r.status !== 0)
        throw new Error(`${cmd.join(" ")} exited with ${r.status}`);
    return JSON.parse(readFileSync(file, "utf8"));
}
export async function dockerSection() {
    const dir = mkdtempSync(join(tmpdir(), "seedswarm-bench-docker-"));
    try {
        const smoke = runWithReport(["bash", "docker/smoke.sh"], "SMOKE_REPORT", dir);
        const nat = runWithReport([process.execPath, "--test", "dist/test/e2e/nat.test.js"], "NAT_TEST_REPORT", dir);
        return {
            id: "docker",
            title: "Docker images, the compose swarm, and nodes behind NAT",
            command: "SMOKE_NO_CACHE=1 npm run bench -- --only docker",
            markdown: `\`docker/smoke.sh\` on Docker's legacy builder with the locally built base images (docker/base-images.sh) where Docker Hub is unreachable: the CPU image's size and build time (${process.env.SMOKE_NO_CACHE ? "cold: no layer cache" : "with the layer cache"}), and the compose swarm (bootstrap + 2 peers + Prometheus, tiny preset) from \`up\` until all three agree at iteration ${smoke.iterations} and have left, through every check (health, Prometheus, \`docker stop\` in ${fmt(smoke.stopSeconds)} s with a checkpoint, rejoin, \`docker kill\`). \`nat_join_seconds\`: a node behind its own SNAT router (network namespaces, test/e2e/nat.test.ts), from process start to its first applied iteration; the later of the two private nodes. ${nat.relayReservations}/2 private nodes held a relay reservation. DCUtR between two NATed hosts over TCP: ${nat.dcutrDirect ? `direct connection ${nat.dcutrDirect}` : `no direct connection within ${fmt(nat.dcutrWaitedSeconds)} s`} (docs/deploy.md, "NAT and relays").`,
            figures: {
                docker_image_mb: smoke.dockerImageMb,
                docker_build_seconds: smoke.dockerBuildSeconds,
                compose_smoke_seconds: smoke.composeSmokeSeconds,
                nat_join_seconds: nat.natJoinSeconds,
            },
        };
    }
    finally {
        rmSync(dir, { recursive: true, force: true });
    }
}
//# sourceMappingURL=docker.js.map