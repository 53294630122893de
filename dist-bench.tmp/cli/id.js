import { loadOrCreateIdentity, readIdentity } from "../node/store/identity.js";
import { identityPath } from "../node/store/data-dir.js";
import { checkWritableDir } from "../node/ops/preflight.js";
import { defaultDataDir } from "./spec-options.js";
export function idCommand(program) {
    program
        .command("id")
        .description("Show the peer id of the node identity in the data directory (--create makes one)")
        .option("--data-dir <dir>", "the node's data directory (identity.key)", defaultDataDir())
        .option("--create", "create the identity if there is none", false)
        .addHelpText("after", `
Examples:
  $ seedswarm id                                     # {"peerId":"12D3KooW...",...}
  $ seedswarm id --create --data-dir /data           # before the first start: a known bootstrap id`)
        .action(async (flags) => {
        let identity = await readIdentity(flags.dataDir);
        if (identity === null) {
            if (!flags.create) {
                throw new Error(`no identity in ${flags.dataDir} (${identityPath(flags.dataDir)} does not exist; --create makes one)`);
            }
            await checkWritableDir(flags.dataDir, "data dir");
            identity = await loadOrCreateIdentity(flags.dataDir);
        }
        process.stdout.write(`${JSON.stringify({ peerId: identity.peerId.toString(), created: identity.created, key: identityPath(flags.dataDir) })}\n`);
    });
}
//# sourceMappingURL=id.js.map