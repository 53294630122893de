/**
 * Reading a peer's side of a fork over /commits, for the deep fork choice (repair.ts): where its
 * chain and ours part (`findFork`), and its chain after the commit both share as a run of
 * verified, linked commits (`linkedRun`). Reads only: nothing here changes our state.
 */
import type { PeerId } from "@libp2p/interface";
import { equalBytes } from "../../protocol/bytes.js";
import { commitHash, decodeCommit } from "../../protocol/codec.js";
import { MAX_COMMITS_PER_RESPONSE } from "../../protocol/limits.js";
import { admissionFrom, PROPOSER_WINDOW, rankFits } from "../chain/admission.js";
import { type ChainedCommit, chained, type Commit, ZERO_HASH } from "../chain/commit.js";
import type { CatchUp, SyncParts } from "./catch-up.js";
import { defaultSyncOptions, fetchCommits } from "./protocols.js";

/** Pages of /commits a fork switch follows the winning side for (256 commits each). */
const MAX_RUN_PAGES = 64;
/** Bytes of the winner's commits held at once: a peer serving huge commits cannot grow it past this. */
const MAX_RUN_BYTES = 32 * 1024 * 1024;
/**
 * All one fork search with a peer may take (its probes, then the commits t-1..t+2): a dissenter
 * answering each probe just inside the request timeout held the one deep-fork slot for 32 x 10 s
 * (security review, finding 9). A search against an honest peer takes one to six pages.
 */
export const FORK_SEARCH_MS = 30_000;
/** All reading the winner's linked run may take (64 pages at 10 s each, unbounded before). */
export const LINKED_RUN_MS = 60_000;

/** A request timeout that ends by `until` (0: the deadline passed). */
export function timeoutBy(until: number): number {
  return Math.max(0, Math.min(defaultSyncOptions.requestTimeoutMs, until - Date.now()));
}

/** Where two chains part: the shared commit t-1 (none at the chain's start), the peer's commit t, and its commits t+1 and t+2 when it has them. */
export interface ForkFound {
  readonly t: number;
  readonly common: ChainedCommit | null;
  readonly fork: ChainedCommit;
  readonly next?: ChainedCommit;
  readonly afterNext?: ChainedCommit;
}

/**
 * Where `peer`'s chain and ours part: the first iteration t whose commits differ, by a binary
 * search over pages of its /commits. Only hashes are compared there (a hash equal to one of our
 * verified commits proves the bytes are ours); what decides is verified: commit t-1 both chains
 * share, and the peer's commits t and t+1 as served over /commits. Why not (a string, logged)
 * when there is no fork within the commits we keep, or the peer does not serve what is needed.
 * `near`: an iteration at which the chains are known to differ (a checksum there, an unchained
 * commit): the first probe is the page that ends there, which holds the fork when it is less
 * than a page deep (the usual case), so one request replaces the binary search's five or so
 * over a full history (each ~1 s from a peer under the fuzz's load).
 */
export async function findFork(s: SyncParts, catchUp: CatchUp, peer: PeerId, near?: number, until = Date.now() + FORK_SEARCH_MS): Promise<ForkFound | string> {
  const none = (why: string) => `no fork found with this peer: ${why}`;
  const { rounds, libp2p, runId } = s;
  const applied = rounds.appliedCommits();
  if (applied.length === 0) return none("we hold no commits");
  const ours = new Map(applied.map((l) => [l.iteration, l]));
  const oldest = applied[0].iteration;
  const newest = applied[applied.length - 1].iteration;
  // The first differing iteration lies in [lo, hi]; hi = newest + 1: none within our commits.
  let lo = oldest;
  let hi = newest + 1;
  for (let probes = 0; lo < hi && probes < 32; probes++) {
    const guess = probes === 0 && near !== undefined ? Math.max(lo, near - MAX_COMMITS_PER_RESPONSE + 1) : NaN;
    const k = guess < hi ? guess : Math.floor((lo + hi) / 2);
    if (timeoutBy(until) === 0) return none("the search ran past its deadline");
    const raw = await fetchCommits(libp2p, peer, runId, k, timeoutBy(until));
    // Past its head (we are ahead of it): the first difference is at k or before.
    if (raw.length === 0) {
      hi = k;
      continue;
    }
    // Unverified bytes: only their hashes are compared with ours, and where the page starts.
    // Past k: the peer keeps nothing before `first` (a later snapshot; such probes once ended every
    // search, fuzz 2026-11-28). Equal there: equal chains up to it. Differing there: older than
    // the commit t-1 the peer could serve, so none found.
    const first = decodeCommit(raw[0]).iteration;
    if (first < k) return none(`asked from ${k}, it served from ${first}`);
    const page = raw.map((bytes) => commitHash(bytes));
    let i = 0;
    while (i < page.length && first + i <= newest && equalBytes(page[i], ours.get(first + i)?.hash ?? ZERO_HASH)) i++;
    if (i === 0 && first > k) return none(`it keeps commits from ${first} only, and differs there`);
    if (i === 0) hi = k;
    else if (i < page.length && first + i <= newest) lo = hi = first + i;
    else lo = first + i;
  }
  const t = lo;
  if (t > newest) return none(`chains equal through our head ${newest}`);
  if (t === oldest && t > 0) return none(`the chains differ at our oldest kept commit ${oldest}`);
  const common = t > 0 ? (ours.get(t - 1) ?? null) : null;
  if (timeoutBy(until) === 0) return none("the search ran past its deadline");
  const got = catchUp.verifiedReply(peer, await fetchCommits(libp2p, peer, runId, Math.max(0, t - 1), timeoutBy(until))).map(chained);
  const from = common ? 1 : 0;
  if (common && (got[0]?.commit.iteration !== t - 1 || !equalBytes(got[0].hash, common.hash))) return none(`it no longer serves our commit ${t - 1} (its chain moved, or the reply did not verify)`);
  const fork = got[from];
  if (!fork || fork.commit.iteration !== t || !equalBytes(fork.commit.prevHash, common?.hash ?? ZERO_HASH)) return none(`it served no commit ${t} on our ${t - 1}`);
  const [next, afterNext] = [got[from + 1], got[from + 2]];
  return { t, common, fork, ...(next ? { next } : {}), ...(afterNext ? { afterNext } : {}) };
}

/**
 * `peer`'s chain after `common` as a linked run, page by page up to its head: each commit
 * verified as gossip verifies, consecutive, chained by hash to the one before, at the rank its
 * proposer holds among the previous commit's authors. It stops at the first that is not, and at `until` (LINKED_RUN_MS from its start by default).
 */
export async function linkedRun(s: SyncParts, catchUp: CatchUp, peer: PeerId, common: ChainedCommit, until = Date.now() + LINKED_RUN_MS): Promise<ChainedCommit[]> {
  const { libp2p, runId } = s;
  const run: ChainedCommit[] = [];
  let prev = common;
  // What ranks the run's commits: ours up to the shared commit, then the run's own.
  const before: Commit[] = [
    ...s.rounds
      .appliedCommits()
      .filter((l) => l.iteration < common.commit.iteration)
      .slice(-PROPOSER_WINDOW)
      .map((l) => l.commit),
    common.commit,
  ];
  let bytes = 0;
  // What was linked when the deadline passes is the run: a slow peer shortens it, never stalls us.
  for (let pages = 0; pages < MAX_RUN_PAGES && bytes < MAX_RUN_BYTES && timeoutBy(until) > 0; pages++) {
    const page = catchUp.verifiedReply(peer, await fetchCommits(libp2p, peer, runId, prev.commit.iteration + 1, timeoutBy(until)).catch(() => []));
    let moved = 0;
    for (const next of page) {
      const { commit } = next;
      if (commit.iteration !== prev.commit.iteration + 1 || !equalBytes(commit.prevHash, prev.hash)) break;
      if (!rankFits(runId, admissionFrom(runId, commit.iteration, before), commit).holds) break;
      prev = chained(next);
      before.push(commit);
      run.push(prev);
      bytes += next.encoded.byteLength;
      moved++;
    }
    if (moved < page.length || moved === 0) break;
  }
  if (run.length === 0) throw new Error("the winning side served no linked commits after the fork");
  return run;
}
