/** `seedswarm init`: a RunSpec written to a JSON file that `--spec` reads back. */
import { runIdOf } from "../../protocol/run-spec.js";
import { writeFileAtomic } from "./atomic-file.js";
import { checkNewFile } from "../ops/preflight.js";
/**
 * Writes `spec` as pretty JSON to `path`, atomically; refuses to replace an existing file unless
 * `force`. Returns the runId (the same as `--spec path` gives).
 *
 * @throws PreflightError FILE_EXISTS or DIR_UNUSABLE before anything is written.
 */
export async function writeSpecFile(path, spec, force) {
    await checkNewFile(path, force, "run spec file");
    await writeFileAtomic(path, Buffer.from(`${JSON.stringify(spec, null, 2)}\n`));
    return runIdOf(spec);
}
//# sourceMappingURL=spec-file.js.map