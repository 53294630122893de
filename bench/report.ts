/**
 * Benchmark results: each section records named figures and a markdown block; the report
 * merges them into docs/<doc>.json (flat name: number) and rewrites docs/<doc>.md. Two documents
 * are written this way: benchmarks (`npm run bench`) and reliability (`npm run chaos`).
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";

export interface Section {
  readonly id: string;
  readonly title: string;
  /** The command that reruns just this section. */
  readonly command: string;
  readonly markdown: string;
  readonly figures: Record<string, number>;
}

const DOCS = join(import.meta.dirname, "..", "..", "docs");

/** Which document a report is: its file name (docs/<name>.md, .json), heading and the command that writes it. */
export interface ReportDoc {
  readonly name: string;
  readonly heading: string;
  readonly command: string;
}

export const BENCHMARKS: ReportDoc = { name: "benchmarks", heading: "Benchmarks", command: "npm run bench" };

/** A one-line description of this machine. */
export function machine(): string {
  const c = cpus();
  return `${c.length} x ${c[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`;
}

function readJson<T>(path: string, fallback: T): T {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as T) : fallback;
}

/** Merges sections into the stored results (sections not rerun keep their last results). */
export async function writeReport(sections: readonly Section[], doc: ReportDoc = BENCHMARKS): Promise<void> {
  await mkdir(DOCS, { recursive: true });
  const JSON_PATH = join(DOCS, `${doc.name}.json`);
  const SECTIONS_PATH = join(DOCS, `${doc.name}.sections.json`);
  const figures = readJson<Record<string, number>>(JSON_PATH, {});
  const stored = readJson<Record<string, Section & { date: string; machine: string }>>(
    SECTIONS_PATH,
    {},
  );
  const date = new Date().toISOString().slice(0, 10);
  for (const s of sections) {
    // A rerun section's old figures go first: a key it no longer writes must not linger.
    for (const k of Object.keys(stored[s.id]?.figures ?? {})) delete figures[k];
    Object.assign(figures, s.figures);
    stored[s.id] = { ...s, date, machine: machine() };
  }
  const sorted = Object.fromEntries(Object.entries(figures).sort(([a], [b]) => a.localeCompare(b)));
  await writeFile(JSON_PATH, `${JSON.stringify(sorted, null, 2)}\n`);
  await writeFile(SECTIONS_PATH, `${JSON.stringify(stored, null, 2)}\n`);
  const body = Object.values(stored)
    .map(
      (s) =>
        `## ${s.title}\n\n_Measured ${s.date} on ${s.machine}. Rerun: \`${s.command}\`._\n\n${s.markdown.trim()}\n\n` +
        `| figure | value |\n|---|---|\n${Object.entries(s.figures)
          .map(([k, v]) => `| \`${k}\` | ${fmt(v)} |`)
          .join("\n")}\n`,
    )
    .join("\n");
  await writeFile(
    join(DOCS, `${doc.name}.md`),
    `# ${doc.heading}\n\nWritten by \`${doc.command}\`; do not edit by hand. Every figure below is also in ` +
      `[${doc.name}.json](${doc.name}.json) as a flat \`name: number\` pair.\n\n${body}`,
  );
}

/** Four significant digits, no exponent for everyday magnitudes. */
export function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v !== 0 && (Math.abs(v) >= 1e6 || Math.abs(v) < 1e-3)) return v.toExponential(3);
  return String(Number(v.toPrecision(4)));
}

/** The median of `xs` (the mean of the middle two when their count is even). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Median wall time in ms of `fn` over `reps` runs after `warmup` runs (default: as many, so the JIT has settled). */
export function timeMs(fn: () => void, reps: number, warmup = Math.max(3, reps)): number {
  for (let i = 0; i < warmup; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
