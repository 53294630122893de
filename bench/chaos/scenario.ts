/** What a chaos scenario reports: figures (docs/reliability.json), checks against the targets, a markdown block. */
import { fmt, type Section } from "../report.js";

export interface Check {
  readonly name: string;
  readonly pass: boolean;
  /** What was measured, in words (shown in the report next to the target). */
  readonly detail: string;
}

export interface ScenarioResult {
  readonly id: string;
  readonly title: string;
  readonly figures: Record<string, number>;
  readonly checks: readonly Check[];
  /** Scenario-specific notes (what was run, how it was measured). */
  readonly notes: string;
}

/** A check on a measured value. */
export function check(name: string, pass: boolean, detail: string): Check {
  return { name, pass, detail };
}

/** A scenario's result as a report section (see bench/report.ts). */
export function toSection(r: ScenarioResult, command: string): Section {
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
