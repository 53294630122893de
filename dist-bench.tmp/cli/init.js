import { defaultOptions } from "../node/options.js";
import { writeSpecFile } from "../node/store/spec-file.js";
import { iterationsOption, memberOption, presetOption, resolveSpec } from "./spec-options.js";
export function initCommand(program) {
    program
        .command("init")
        .description("Write a RunSpec JSON file from a preset, to edit and pass to --spec; prints its runId")
        .addOption(presetOption())
        .addOption(iterationsOption())
        .addOption(memberOption())
        .option("-o, --out <file>", "file to write", defaultOptions.specFile)
        .option("--force", "overwrite the file if it exists", false)
        .addHelpText("after", `
Examples:
  $ seedswarm init --preset tiny-spsa                 # writes run.json
  $ seedswarm init --preset mnist-cnn-spsa -o cnn.json --iterations 8000
  $ seedswarm node --spec cnn.json                    # every node of the run uses the same file
  $ seedswarm init --preset tiny-spsa --member 12D3KooWA... --member 12D3KooWB...
                                                      # a member run: only these peer ids take part`)
        .action(async (flags) => {
        const spec = resolveSpec(flags);
        const runId = await writeSpecFile(flags.out, spec, flags.force);
        process.stdout.write(`${JSON.stringify({ run: runId, file: flags.out, name: spec.name, members: spec.members?.length ?? 0 })}\n`);
    });
}
//# sourceMappingURL=init.js.map