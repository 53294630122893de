/** What a chaos scenario reports: figures (docs/reliability.json), checks against the targets, a markdown block. */
import { fmt } from "../report.js";
/** A check on a measured value. */
export function check(name, pass, detail) {
    return { name, pass, detail };
}
/** A scenario's result as a report section (see bench/report.ts). */
export function toSection(r, command) {
    const rows = r.checks.map((c) => `| ${c.pass ? "met" : "**not met**"} | ${c.name} | ${c.detail} |`).join("\n");
    return {
        id: r.id,
        title: r.title,
        command,
        markdown: `${r.notes.trim()}\n\n| target | check | measured |\n|---|---|---|\n${rows}`,
        figures: r.figures,
    };
}
export { fmt };
//# sourceMappingURL=scenario.js.map