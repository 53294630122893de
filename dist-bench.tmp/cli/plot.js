/** `seedswarm plot <file.jsonl...>`: draw saved metrics logs as one SVG to compare runs. */
import { existsSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { InvalidArgumentError } from "commander";
import { readMetricsLog } from "../node/observe/metrics-log.js";
import { plotRuns } from "../node/offline/plot.js";
export function plotCommand(program) {
    program
        .command("plot")
        .description("Draw saved metrics logs (<data-dir>/metrics/<runId>.jsonl) as one SVG: loss, accuracy, speed, bytes")
        .argument("<files...>", "metrics logs to draw, one colour each")
        .option("-o, --out <file>", "SVG to write", "seedswarm-plot.svg")
        .addHelpText("after", `
Examples:
  $ seedswarm plot ~/.seedswarm/metrics/*.jsonl
  $ seedswarm plot run-a.jsonl run-b.jsonl --out compare.svg`)
        .action((files, flags) => {
        const runs = files.map((f) => {
            if (!existsSync(f))
                throw new InvalidArgumentError(`no such metrics log: ${f}`);
            const rows = readMetricsLog(f);
            if (rows.length === 0)
                throw new InvalidArgumentError(`${f} holds no metrics rows`);
            return { label: basename(f, ".jsonl").slice(0, 16), rows };
        });
        writeFileSync(flags.out, plotRuns(runs));
        for (const r of runs) {
            const last = r.rows[r.rows.length - 1];
            process.stdout.write(`${r.label}: ${r.rows.length} rows, iteration ${last.iteration}, loss ${last.loss?.toFixed(4) ?? "-"}\n`);
        }
        process.stdout.write(`wrote ${flags.out}\n`);
    });
}
//# sourceMappingURL=plot.js.map