/**
 * A Vulkan driver for the WebGPU tests on any Linux machine: Mesa's lavapipe (software Vulkan),
 * installed where it can be (Debian 12 needs mesa-vulkan-drivers 25.x from bookworm-backports:
 * its own 22.3 is rejected by Dawn) and selected with VK_DRIVER_FILES, so the tests run the same
 * driver whether or not the machine has a GPU.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { aptInstall } from "./system-package.js";
export const LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.json";
/** The oldest Mesa whose lavapipe Dawn accepts (it needs Vulkan 1.1 features 22.3 lacks). */
const MIN_MESA_MAJOR = 24;
function mesaMajor() {
    const r = spawnSync("dpkg-query", ["-W", "-f=${Version}", "mesa-vulkan-drivers"], { encoding: "utf8" });
    return r.status === 0 ? Number.parseInt(r.stdout, 10) : 0;
}
function ready() {
    const loader = spawnSync("sh", ["-c", "ldconfig -p | grep -q libvulkan.so.1"]).status === 0;
    return loader && existsSync(LAVAPIPE_ICD) && (mesaMajor() >= MIN_MESA_MAJOR || !existsSync("/usr/bin/dpkg-query"));
}
let problem;
/**
 * Makes lavapipe available and selects it for this process and its children
 * (process.env.VK_DRIVER_FILES). Null when ready; otherwise why not, for a skip message.
 */
export function useLavapipe() {
    if (problem === undefined) {
        problem = null;
        if (!ready()) {
            const failed = aptInstall(["mesa-vulkan-drivers", "libvulkan1"], "bookworm-backports");
            if (failed)
                problem = `lavapipe (software Vulkan) is missing: ${failed}`;
            else if (!ready())
                problem = `apt-get ran but ${LAVAPIPE_ICD} with Mesa >= ${MIN_MESA_MAJOR} and libvulkan1 are still missing`;
        }
        if (!problem)
            process.env.VK_DRIVER_FILES = LAVAPIPE_ICD;
    }
    return problem;
}
/**
 * useLavapipe, and the optional npm package `webgpu` (Dawn) loadable: null when WebGPU tests can
 * run here; otherwise why not, for a skip message.
 */
export async function webGpuProblem() {
    const problem = useLavapipe();
    if (problem)
        return problem;
    const dawn = "webgpu";
    try {
        await import(dawn);
        return null;
    }
    catch (err) {
        return `the optional package webgpu (Dawn) does not load: ${err.message.split("\n")[0]}`;
    }
}
//# sourceMappingURL=vulkan.js.map