/**
 * What a node's commit log says about admission (node/chain/admission.ts): the final chain (the
 * last line per iteration: a one-step switch can replace a commit logged first), the share of its
 * commits that hold honest authors, and the newcomers each commit took. Tests and the adversary
 * benchmark share it.
 */
import { PROPOSER_WINDOW } from "../../node/chain/admission.js";
import type { Node } from "./node-process.js";

export type LoggedCommit = ReturnType<Node["commits"]>[number] & { proposer?: string; rank?: number };

/** The chain a node ended on, oldest first. */
export function finalChain(node: Node): LoggedCommit[] {
  return [...new Map(node.commits().map((c) => [c.iteration, c as LoggedCommit])).values()].sort((a, b) => a.iteration - b.iteration);
}

export interface AdmissionFigures {
  readonly commits: number;
  /** Share of commits holding at least one honest entry. */
  readonly anyHonest: number;
  /** Share of commits holding every honest author. */
  readonly allHonest: number;
  /** Most newcomers (authors of none of the previous PROPOSER_WINDOW commits) in one commit. */
  readonly maxNewcomers: number;
  /** Entries by the `hostile` ids over all commits. */
  readonly hostileEntries: number;
}

/** Figures over `chain`'s commits from iteration `from` on. */
export function admissionFigures(chain: readonly LoggedCommit[], honest: ReadonlySet<string>, hostile: ReadonlySet<string>, from = 0): AdmissionFigures {
  const byIteration = new Map(chain.map((c) => [c.iteration, c]));
  const counted = chain.filter((c) => c.iteration >= from);
  let anyHonest = 0;
  let allHonest = 0;
  let maxNewcomers = 0;
  let hostileEntries = 0;
  for (const c of counted) {
    const authors = new Set(c.entries.map((e) => e.author));
    const h = [...honest].filter((a) => authors.has(a)).length;
    if (h > 0) anyHonest++;
    if (h === honest.size) allHonest++;
    hostileEntries += [...authors].filter((a) => hostile.has(a)).length;
    const window = Array.from({ length: PROPOSER_WINDOW }, (_, i) => byIteration.get(c.iteration - 1 - i));
    // Only where the log holds the whole window (or the chain's start) is a newcomer known to be one.
    if (c.iteration >= PROPOSER_WINDOW && window.some((w) => w === undefined)) continue;
    const members = new Set(window.flatMap((w) => w?.entries.map((e) => e.author) ?? []));
    maxNewcomers = Math.max(maxNewcomers, [...authors].filter((a) => !members.has(a)).length);
  }
  const n = Math.max(1, counted.length);
  return { commits: counted.length, anyHonest: anyHonest / n, allHonest: allHonest / n, maxNewcomers, hostileEntries };
}
