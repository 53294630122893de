import { writeSwarmKey } from "../node/network/swarm-key.js";
export function swarmKeyCommand(program) {
    program
        .command("swarm-key")
        .description("Write a new private swarm key (mode 0600): only nodes given the same key can connect to each other")
        .option("-o, --out <file>", "file to write", "swarm.key")
        .option("--force", "overwrite the file if it exists", false)
        .addHelpText("after", `
Examples:
  $ seedswarm swarm-key -o /secrets/swarm.key         # copy it to every node of the swarm, privately
  $ seedswarm node --swarm-key /secrets/swarm.key ...  # or SEEDSWARM_SWARM_KEY=/secrets/swarm.key`)
        .action(async (flags) => {
        await writeSwarmKey(flags.out, flags.force);
        process.stdout.write(`${JSON.stringify({ file: flags.out, mode: "0600" })}\n`);
    });
}
//# sourceMappingURL=swarm-key.js.map