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
 * (three runs) to 22 MiB; the daemon logs a hint when `--small-heap` runs without it. The same
 * holds for glibc's allocator settings (ALLOCATOR_ENV below).
 *
 * Set at run time through `v8.setFlagsFromString`, before the daemon allocates its state: V8
 * reads the flag at each collection (Node allows flags after start; heap-size limits, read only
 * when the heap is created, could not be set this way).
 */
import { setFlagsFromString } from "node:v8";

export function preferSmallHeap(): void {
  setFlagsFromString("--optimize-for-size");
}

/**
 * The start-up flag that keeps V8's garbage collection on the node's own thread. By default V8
 * marks, sweeps and scavenges with helper threads, one per spare core; a node's main thread is
 * busy computing contributions all the time, so those helpers run on the cores of the other
 * processes (two nodes on two cores: each node's helpers preempt the other's contribution, and a
 * parallel scavenge waits for a helper that is not running). Measured on `swarm --nodes 2` on 2
 * cores (mnist-mlp-spsa, iterations 100 to 600): on one hour 26.5 to 34.6 iterations/s (median
 * 33.8 of 5 runs) and 37 to 46 s of CPU with this flag against 21.0 to 25.7 (median 24.2 of 6)
 * and 47 to 59 s without; on a slower hour, alternated, 22.8 to 26.1 (median 25.3 of 4) and 48
 * to 53 s against 19.9 to 22.4 (median 20.7 of 4) and 54 to 62 s. One `train` process alone: the
 * same rate either way. Narrower flags did not do it: `--no-concurrent-marking` (25.9),
 * `--no-parallel-scavenge` (21.2); nor did `--single-threaded` (24.2, 28.5; it also compiles on
 * the main thread). V8 reads it only at start (setting it through `v8.setFlagsFromString` aborts the process at the
 * next collection), so the CLI's shebang, the local swarm launcher, the Docker images and the
 * test harness pass it; the daemon logs a hint when it runs without.
 */
export const GC_ON_MAIN_THREAD_FLAG = "--single-threaded-gc";

/** Whether this process runs its garbage collection on the main thread only. */
export function gcOnMainThread(execArgv: readonly string[]): boolean {
  return execArgv.some((a) => /^--single[-_]threaded([-_]gc)?$/.test(a));
}

/** The start-up flag that caps V8's young generation (semi-spaces of 2 MiB instead of up to 16). */
export const YOUNG_GENERATION_FLAG = "--max-semi-space-size=2";

/**
 * glibc's allocator settings for the same nodes (environment variables, read by glibc when the
 * process starts). By default glibc raises its mmap threshold to the size of the largest block
 * freed (up to 32 MiB), so after one large message every later large buffer (a hostile gossip
 * message may be up to 8 MiB) comes from the main heap, whose freed middle it does not give back:
 * on the full fuzz campaign every node's heap jumped by about 20 MiB at once, late in the flood.
 * A fixed threshold keeps large buffers in their own mappings, returned when freed; two arenas
 * instead of up to 8 per core keep worker threads' frees from scattering over more heaps.
 */
export const ALLOCATOR_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: "131072", MALLOC_ARENA_MAX: "2" };

/** The start-up half of `--small-heap` as one environment: the young generation capped, glibc's settings. */
export const SMALL_HEAP_ENV: Readonly<Record<string, string>> = { NODE_OPTIONS: YOUNG_GENERATION_FLAG, ...ALLOCATOR_ENV };

/** The ALLOCATOR_ENV variables that `env` lacks (an empty list: all set, whatever their values). */
export function allocatorUnset(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(ALLOCATOR_ENV).filter((k) => env[k] === undefined || env[k] === "");
}

/** Whether this process was started with its young generation capped (any `--max-semi-space-size`). */
export function youngGenerationCapped(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].some((a) => /^--max[-_]semi[-_]space[-_]size(=|$)/.test(a));
}
