/** `seedswarm swarm-key`: write a new private swarm key file for `seedswarm node --swarm-key`. */
import type { Command } from "commander";
import { writeSwarmKey } from "../node/network/swarm-key.js";

interface SwarmKeyFlags {
  out: string;
  force: boolean;
}

export function swarmKeyCommand(program: Command): void {
  program
    .command("swarm-key")
    .description("Write a new private swarm key (mode 0600): only nodes given the same key can connect to each other")
    .option("-o, --out <file>", "file to write", "swarm.key")
    .option("--force", "overwrite the file if it exists", false)
    .addHelpText(
      "after",
      `
Examples:
  $ seedswarm swarm-key -o /secrets/swarm.key         # copy it to every node of the swarm, privately
  $ seedswarm node --swarm-key /secrets/swarm.key ...  # or SEEDSWARM_SWARM_KEY=/secrets/swarm.key`,
    )
    .action(async (flags: SwarmKeyFlags) => {
      await writeSwarmKey(flags.out, flags.force);
      process.stdout.write(`${JSON.stringify({ file: flags.out, mode: "0600" })}\n`);
    });
}
