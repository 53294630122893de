/**
 * Benchmark results: each section records named figures and a markdown block; the report
 * merges them into docs/<doc>.json (flat name: number) and rewrites docs/<doc>.md. Two documents
 * are written this way: benchmarks (`npm run bench`) and reliability (`npm run chaos`).
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
const DOCS = join(import.meta.dirname, "..", "..", "docs");
export const BENCHMARKS = { name: "benchmarks", heading: "Benchmarks", command: "npm run bench" };
/** A one-line description of this machine. */
export function machine() {
    const c = cpus();
    return `${c.length} x ${c[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`;
}
function readJson(path, fallback) {
    return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : fallback;
}
/** Merges sections into the stored results (sections not rerun keep their last results). */
export async function writeReport(sections, doc = BENCHMARKS) {
    await mkdir(DOCS, { recursive: true });
    const JSON_PATH = join(DOCS, `${doc.name}.json`);
    const SECTIONS_PATH = join(DOCS, `${doc.name}.sections.json`);
    const figures = readJson(JSON_PATH, {});
    const stored = readJson(SECTIONS_PATH, {});
    const date = new Date().toISOString().slice(0, 10);
    for (const s of sections) {
        Object.assign(figures, s.figures);
        stored[s.id] = { ...s, date, machine: machine() };
    }
    const sorted = Object.fromEntries(Object.entries(figures).sort(([a], [b]) => a.localeCompare(b)));
    await writeFile(JSON_PATH, `${JSON.stringify(sorted, null, 2)}\n`);
    await writeFile(SECTIONS_PATH, `${JSON.stringify(stored, null, 2)}\n`);
    const body = Object.values(stored)
        .map((s) => `## ${s.title}\n\n_Measured ${s.date} on ${s.machine}. Rerun: \`${s.command}\`._\n\n${s.markdown.trim()}\n\n` +
        `| figure | value |\n|---|---|\n${Object.entries(s.figures)
            .map(([k, v]) => `| \`${k}\` | ${fmt(v)} |`)
            .join("\n")}\n`)
        .join("\n");
    await writeFile(join(DOCS, `${doc.name}.md`), `# ${doc.heading}\n\nWritten by \`${doc.command}\`; do not edit by hand. Every figure below is also in ` +
        `[${doc.name}.json](${doc.name}.json) as a flat \`name: number\` pair.\n\n${body}`);
}
/** Four significant digits, no exponent for everyday magnitudes. */
export function fmt(v) {
    if (!Number.isFinite(v))
        return String(v);
    if (v !== 0 && (Math.abs(v) >= 1e6 || Math.abs(v) < 1e-3))
        return v.toExponential(3);
    return String(Number(v.toPrecision(4)));
}
/** Median wall time in ms of `fn` over `reps` runs after `warmup` runs (default: as many, so the JIT has settled). */
export function timeMs(fn, reps, warmup = Math.max(3, reps)) {
    for (let i = 0; i < warmup; i++)
        fn();
    const times = [];
    for (let i = 0; i < reps; i++) {
        const t = performance.now();
        fn();
        times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
}
//# sourceMappingURL=report.js.map