/**
 * The daemon's V8 heap policy (issue 11: bounded memory under hostile input).
 *
 * Every hostile message a node refuses is still received, decoded, hashed and verified: garbage,
 * a lot of it under a flood. With its default growth heuristics V8 answers a high allocation rate
 * by growing the old generation up to 4x what is live before it collects, and keeps the pages:
 * heap snapshots of a node before and after 4,000 fuzz cases showed the live heap grow by 13.6
 * MiB (4.4 of it compiled code) while its resident memory grew by 60 to 220 MiB, nearly all of it
 * old-space pages holding garbage. `--optimize-for-size` makes V8 grow the heap conservatively
 * (and keep the young generation small), so the heap tracks what is live: memory an attacker can
 * make an honest node hold is then what our caps bound, not what the collector postpones. The
 * price is more frequent collections: on a clean 3-node tiny-spsa swarm, 34.1 instead of 21.9 ms
 * of CPU per iteration per node (10.4 instead of 16.8 iterations/s), so it is opt-in
 * (`seedswarm node --small-heap`), for open runs exposed to hostile peers.
 *
 * V8 sizes the young generation only when the heap is created, so that half of the policy must
 * be given at process start: `NODE_OPTIONS=--max-semi-space-size=2` (YOUNG_GENERATION_FLAG). On
 * the fuzz bench at 3,000 cases per topic it cut the honest nodes' peak growth from 29-40 MiB
 * (three runs) to 22 MiB; the daemon logs a hint when `--small-heap` runs without it.
 *
 * Set at run time through `v8.setFlagsFromString`, before the daemon allocates its state: V8
 * reads the flag at each collection (Node allows flags after start; heap-size limits, read only
 * when the heap is created, could not be set this way).
 */
import { setFlagsFromString } from "node:v8";

export function preferSmallHeap(): void {
  setFlagsFromString("--optimize-for-size");
}

/** The start-up flag that caps V8's young generation (semi-spaces of 2 MiB instead of up to 16). */
export const YOUNG_GENERATION_FLAG = "--max-semi-space-size=2";

/** Whether this process was started with its young generation capped (any `--max-semi-space-size`). */
export function youngGenerationCapped(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].some((a) => /^--max[-_]semi[-_]space[-_]size(=|$)/.test(a));
}
