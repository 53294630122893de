/**
 * Where a restarted node resumes: the newest readable checkpoint (else the run's initial state),
 * then every commit the log holds beyond it, each checked as it is read: its bytes hash to the
 * hash logged for it, it chains onto the state's hash, and applying it gives the proposer's
 * checksum. The node thus resumes at its last committed iteration instead of the checkpoint's, and
 * a swarm killed all at once re-applies the commits it made instead of re-running those
 * iterations with new contributions. The first commit that fails a check ends the replay (the
 * state stays the one before it); what is missing after that comes from peers.
 */
import { equalBytes, fromHex, toHex } from "../../protocol/bytes.js";
import type { Weights } from "../../training/params.js";
import type { Replica } from "../../training/replica.js";
import type { TrainingRun } from "../../training/run-context.js";
import { CHAIN_KEEP, type EncodedCommit, ZERO_HASH } from "../chain/commit.js";
import type { CommitLogFile, LoggedCommit } from "../chain/commit-log.js";
import type { Logger } from "../ground/index.js";
import { removeStaleTemps } from "./atomic-file.js";
import { loadUsableCheckpoint } from "./checkpoint.js";

export interface Resumed {
  /**
   * What the state was loaded from before the replay; "none" where there is neither a checkpoint
   * nor an initial state (a transformer node without weight files): `replica` is then null.
   */
  readonly source: "checkpoint" | "previous checkpoint" | "initial state" | "none";
  /** The resumed state: `parts.replica` reset, or one made from the checkpoint; null with source "none". */
  readonly replica: Replica | null;
  /** The iteration that source held. */
  readonly baseIteration: number;
  /** Commits of the log applied on top of it: the head is baseIteration + replayed. */
  readonly replayed: number;
  /** Why the replay ended before the log did (null: it reached the log's end). */
  readonly replayStop: string | null;
  /** The hash and authors of the last applied commit (what the next commit chains onto). */
  readonly chain: { readonly hash: Uint8Array; readonly authors: string[] };
  /** Our join timestamp from the checkpoint (null: none, a new one is taken). */
  readonly joinedAt: number | null;
  /** The logged commits that lead to the state, oldest first (at most CHAIN_KEEP): served to peers. */
  readonly commits: EncodedCommit[];
}

export interface ResumeParts {
  readonly checkpointPath: string;
  /** Folders where a killed writer may have left temp files. */
  readonly tempDirs: readonly string[];
  readonly commitLog: CommitLogFile;
  readonly run: Pick<TrainingRun, "runId" | "algorithm" | "replicaAt">;
  /** At the run's initial state, reset to what is resumed; null where this node has no initial state. */
  readonly replica: Replica | null;
  readonly log: Logger;
}

/** Loads the state a node resumes from into `parts.replica`; see the file comment. */
export async function resumeFromDisk(parts: ResumeParts): Promise<Resumed> {
  const { log } = parts;
  let replica = parts.replica;
  for (const dir of parts.tempDirs) {
    const removed = await removeStaleTemps(dir);
    if (removed.length > 0) log.warn({ dir, files: removed }, "stale temporary files removed");
  }
  const found = await loadUsableCheckpoint(parts.checkpointPath);
  for (const s of found.skipped) log.error({ path: s.path, problem: s.problem }, "checkpoint unusable; falling back");
  const cp = found.checkpoint;
  let hash: Uint8Array = ZERO_HASH;
  let authors: string[] = [];
  // A checkpoint without a chain position (written by `train`) cannot be continued by commits.
  let replayable = true;
  if (cp) {
    if (replica) replica.reset(cp.weights, cp.iteration);
    else replica = parts.run.replicaAt(cp.weights, cp.iteration);
    if (cp.chain) {
      hash = fromHex(cp.chain.hash);
      authors = [...cp.chain.authors];
    } else replayable = cp.iteration === 0;
  } else if (found.skipped.length > 0) {
    log.warn({}, "no usable checkpoint: starting from the run's initial state (the commit log and peers fill in the rest)");
  }
  if (!replica) {
    return { source: "none", replica: null, baseIteration: 0, replayed: 0, replayStop: null, chain: { hash, authors }, joinedAt: null, commits: [] };
  }
  const source = found.source ?? "initial state";
  const baseIteration = replica.iteration;
  const logged = parts.commitLog.read();
  const byIteration = new Map(logged.map((l) => [l.commit.iteration, l]));

  let replayed = 0;
  let replayStop: string | null = null;
  if (replayable) {
    // The state before the commit being replayed: a commit whose checksum differs is undone.
    let before: Weights | null = null;
    for (;;) {
      const entry = byIteration.get(replica.iteration);
      if (!entry) break;
      const problem = replayProblem(parts.run.runId, entry, hash);
      if (problem) {
        replayStop = problem;
        break;
      }
      before ??= replica.weights.slice();
      before.set(replica.weights);
      const at = replica.iteration;
      try {
        replica.applyIteration(parts.run.algorithm, entry.commit.entries);
        const sum = replica.checksum();
        if (sum !== toHex(entry.commit.checksum))
          replayStop = `checksum after applying ${sum.slice(0, 12)} != proposer's ${toHex(entry.commit.checksum).slice(0, 12)}`;
      } catch (err) {
        // A payload the algorithm refuses (a corrupt line that still parsed).
        replayStop = `commit does not apply: ${(err as Error).message}`;
      }
      if (replayStop) {
        replica.reset(before, at);
        break;
      }
      hash = entry.hash;
      authors = entry.commit.entries.map((e) => e.author.id);
      replayed += 1;
    }
    if (replayStop) log.warn({ iteration: replica.iteration, reason: replayStop }, "commit log replay stopped");
  }
  return {
    source,
    replica,
    baseIteration,
    replayed,
    replayStop,
    chain: { hash, authors },
    joinedAt: cp?.chain?.joinedAt ?? null,
    commits: chainTo(byIteration, replica.iteration, hash),
  };
}

/** Why a logged commit cannot be applied on top of a state after `hash` (null: it can). */
function replayProblem(runId: string, entry: LoggedCommit, hash: Uint8Array): string | null {
  if (entry.commit.runId !== runId) return "commit of another run";
  if (!equalBytes(entry.commit.prevHash, hash)) return "commit does not chain onto the state";
  return null;
}

/** The logged commits that end at `head` with hash `hash`, followed backwards by prevHash. */
function chainTo(byIteration: Map<number, LoggedCommit>, head: number, hash: Uint8Array): EncodedCommit[] {
  const out: EncodedCommit[] = [];
  let expected: Uint8Array = hash;
  for (let t = head - 1; t >= 0 && out.length < CHAIN_KEEP; t--) {
    const entry = byIteration.get(t);
    // The log's hashes are of the signed bytes read back (commit-log.ts checks them).
    if (!entry || !equalBytes(entry.hash, expected)) break;
    out.push({ commit: entry.commit, encoded: entry.encoded });
    expected = entry.commit.prevHash;
  }
  return out.reverse();
}
