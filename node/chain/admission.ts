/**
 * Admission from the verified chain (docs/security.md, "Admission"): who is a member, who may
 * propose iteration t at which rank, and how many newcomers a commit may take. Everything here is
 * a function of the last PROPOSER_WINDOW + 1 commits alone, never of what a stranger claims (a
 * join time, a head), so every node that holds those commits computes the same answer.
 *
 * - **Members** of t are the authors of commits t-K .. t-1 (K = PROPOSER_WINDOW). A commit holds
 *   every usable member entry before any newcomer's, and at most NEWCOMER_SLOTS newcomers, picked
 *   by H(runId, t, author): a crowd of free identities enters a few a round, whatever join time
 *   it claims, and can never push a member out.
 * - **Proposers** of t are the authors of commit t-1 (the "base"), ranked by H(runId, t, peer) in
 *   tiers: the proven (proposers of a commit of the window, from PROVEN_FROM on), then members
 *   witnessed at least PROBATION iterations, then newer ones, then the demoted (below: the passed
 *   over, then censors, then the proposer of a thin t-1; a proven member passed over ranks after
 *   the other proven only). A crowd of members that contribute but
 *   never commit so ranks after every proposer that does, instead of costing a round's tick each;
 *   once every AUDITION_EVERY iterations the best unproven senior ranks first (its turn to become
 *   proven: a silent one is then passed over, below, and costs that one tick).
 * - **Thin commits and censors**: a commit that keeps at most half of its predecessor's authors
 *   that proposed a commit of the window (one replaced by another, too) is thin; members that
 *   never commit do not count, so a crowd that sends late cannot make an honest commit look thin.
 *   After a thin commit t-1 the authors it left out stay in the base of t and rank before its
 *   proposer, whatever else they did, so one proposer that omits the others cannot make itself
 *   the only proposer. If a proposer a thin commit left out is in a later commit of the window (it
 *   was alive: the proposer censored it), the thin commit's proposer ranks after the passed over
 *   for as long as its thin commit is in the window. An author that left for good never comes
 *   back, so an honest proposer that dropped a dead peer is demoted for one iteration only.
 * - **Passed over**: members that held a better rank than the commit's proposer did not propose
 *   in time (a silent proposer, such as a Sybil that contributes but never commits); they rank
 *   after the undemoted while that commit is in the window, so a crowd of silent members costs a
 *   round's tick once each per window, not every round. Who was passed over is known only to a
 *   node that checked that commit against a whole window: a node that did not (a joiner, a
 *   restart) checks ranks loosely until it did for a whole window.
 */
import { equalBytes } from "../../protocol/bytes.js";
import { type Commit, proposerOrder, rankOf, ZERO_HASH } from "./commit.js";

/** Commits whose authors are the members (and whose thin proposers stay demoted). */
export const PROPOSER_WINDOW = 16;
/** Iterations a newly witnessed member ranks after the others as a proposer. */
export const PROBATION = 8;
/** The first iteration whose proposers are ranked proven first. */
export const PROVEN_FROM = 2 * PROPOSER_WINDOW;
/** Every this many iterations an unproven senior holds rank 0 (the audition). */
export const AUDITION_EVERY = PROPOSER_WINDOW;
/** Most newcomer entries (authors not in the window) one commit may hold. */
export const NEWCOMER_SLOTS = 4;

/** What admission reads of a commit. */
export interface WindowCommit {
  readonly iteration: number;
  readonly proposer: string;
  readonly authors: readonly string[];
  /** The chain's first commit (prevHash = ZERO_HASH): nothing comes before it. */
  readonly first: boolean;
  /** The proposers that ranked before this commit's (passedOver); undefined: not known here. */
  readonly passedOver?: readonly string[];
}

/** Who may take part in iteration t, computed from the commits before it. */
export interface Admission {
  readonly iteration: number;
  /** Rank order of the proposers of t, best first; empty at the start of a chain. */
  readonly order: readonly string[];
  /** The authors round t waits for (the base: the last commit's, and those a thin commit left out). */
  readonly expected: readonly string[];
  /** Authors of the window's commits: their entries go before newcomers'. */
  readonly members: ReadonlySet<string>;
  /** Proposers of the window's commits (the proven): a crowd of free identities cannot grow it. */
  readonly proven: ReadonlySet<string>;
  /**
   * How many of the window's commits hold each member's entry: where a commit has fewer seats
   * than members (OPEN_SEATS), the most included keep theirs, so a member that misses a round or
   * a few keeps its seat against a crowd that came later.
   */
  readonly inclusions: ReadonlyMap<string, number>;
  /**
   * Whether the window was whole (PROPOSER_WINDOW + 1 commits, or back to the chain's first): only
   * then are ranks and the newcomer cap checked strictly (a snapshot joiner's first iterations are not).
   */
  readonly complete: boolean;
}

/** The start of a chain: no proposers yet (the first commit's own authors rank), no members. */
export function startAdmission(iteration: number, complete: boolean): Admission {
  return { iteration, order: [], expected: [], members: new Set(), proven: new Set(), inclusions: new Map(), complete };
}

/**
 * Keeps at most half of prev's authors that are `proposers` (one replaced by another is thin
 * too). Only proposers count: members that never commit (a crowd) that send late, or withhold,
 * must not make an honest proposer's commit look like censorship.
 */
function thin(prev: ReadonlySet<string>, cur: ReadonlySet<string>, proposers: ReadonlySet<string>): boolean {
  let counted = 0;
  let kept = 0;
  for (const a of prev) {
    if (!proposers.has(a)) continue;
    counted++;
    if (cur.has(a)) kept++;
  }
  return counted > 0 && 2 * kept <= counted;
}

/**
 * Admission to iteration t from `window`: the commits before t, oldest first (only the run of
 * consecutive iterations ending at t - 1 is read; extra or older ones are ignored).
 */
export function admissionAt(runId: string, t: number, window: readonly WindowCommit[]): Admission {
  // The consecutive run ending at t - 1, at most PROPOSER_WINDOW + 1 long.
  const run: WindowCommit[] = [];
  for (let i = window.length - 1; i >= 0 && run.length <= PROPOSER_WINDOW; i--) {
    if (window[i].iteration !== t - 1 - run.length) break;
    run.unshift(window[i]);
  }
  if (run.length === 0) return startAdmission(t, t === 0);
  const recent = run.filter((c) => c.iteration >= t - PROPOSER_WINDOW);
  const complete = (run.length > PROPOSER_WINDOW || run[0].first) && recent.every((c) => c.first || c.passedOver !== undefined);
  const sets = run.map((c) => new Set(c.authors));
  const n = run.length;
  const last = sets[n - 1];
  // The proposers of the run's commits: what thin commits are measured by.
  const proposers = new Set(run.map((c) => c.proposer));
  const lastThin = n >= 2 && thin(sets[n - 2], last, proposers);
  const base = new Set(last);
  if (lastThin) for (const a of sets[n - 2]) base.add(a);

  // Demoted, in three tiers, worst last: the passed over (slow, or silent), censors (thin commits
  // whose left-out authors came back), and the proposer of a thin t-1, which ranks after every
  // author it left out whatever else they did (else a censor could follow an honest thin commit
  // made under load with its own and keep the chain).
  const passed = new Set<string>();
  for (const c of recent) for (const p of c.passedOver ?? []) passed.add(p);
  const censors = new Set<string>();
  const later = new Set<string>(last);
  for (let i = n - 2; i >= 1; i--) {
    if (run[i].iteration >= t - PROPOSER_WINDOW && thin(sets[i - 1], sets[i], proposers)) {
      for (const a of sets[i - 1]) {
        if (proposers.has(a) && !sets[i].has(a) && later.has(a)) {
          censors.add(run[i].proposer);
          break;
        }
      }
    }
    for (const a of sets[i]) later.add(a);
  }
  const thinProposer = lastThin ? run[n - 1].proposer : undefined;

  const inclusions = new Map<string, number>();
  for (let i = 0; i < n; i++) if (run[i].iteration >= t - PROPOSER_WINDOW) for (const a of sets[i]) inclusions.set(a, (inclusions.get(a) ?? 0) + 1);
  const members = new Set(inclusions.keys());
  // Senior: witnessed in a commit at least PROBATION iterations before t - 1.
  const senior = new Set<string>();
  for (let i = 0; i < n && run[i].iteration <= t - 1 - PROBATION; i++) for (const a of sets[i]) senior.add(a);

  // Proven: proposed a commit of the window (so it commits when its rank comes). Not before
  // PROVEN_FROM: in a chain's first windows every author takes its turn in H order, so the proven
  // are all who proposed, not the first few.
  const proven = new Set(t >= PROVEN_FROM ? recent.map((c) => c.proposer) : []);
  // A proven member passed over (late once, under load) ranks after the other proven but before
  // every unproven one: below a crowd of silent seniors, each costing a tick, it would be passed
  // over again by whoever commits, and so would the rest of the proven.
  const tiers: string[][] = [[], [], [], [], [], [], []];
  for (const a of base) {
    const tier = a === thinProposer ? 6 : censors.has(a) ? 5 : proven.has(a) ? (passed.has(a) ? 1 : 0) : passed.has(a) ? 4 : senior.has(a) ? 2 : 3;
    tiers[tier].push(a);
  }
  const [first, provenSlow, seniors, probation, slow, censoring, thinning] = tiers.map((tier) => proposerOrder(runId, t, tier));
  // The audition: once a window, the best unproven senior ranks first, so a member that has not
  // proposed lately (a newer honest node, or one the proven kept outranking) gets its turn.
  const audition = t % AUDITION_EVERY === 0 && seniors.length > 0 ? seniors.splice(0, 1) : [];
  const order = [...audition, ...first, ...provenSlow, ...seniors, ...probation, ...slow, ...censoring, ...thinning];
  return { iteration: t, order, expected: [...base], members, proven, inclusions, complete };
}

/**
 * The newcomers of `authors` (not members of `admission`), and whether they fit the cap. At the
 * start of a chain every author is a newcomer, so the first commit holds at most NEWCOMER_SLOTS.
 */
export function newcomersOf(admission: Admission, authors: readonly string[]): string[] {
  return authors.filter((a) => !admission.members.has(a));
}

/**
 * What admission reads of commits as the chain holds them; `passedOver(i)`: who the i-th commit
 * passed over, where this node checked it against a whole window (else undefined).
 */
export function windowOf(commits: readonly Commit[], passedOver: (i: number) => readonly string[] | undefined = () => undefined): WindowCommit[] {
  return commits.map((c, i) => ({
    iteration: c.iteration,
    proposer: c.proposer,
    authors: c.entries.map((e) => e.author.id),
    first: equalBytes(c.prevHash, ZERO_HASH),
    passedOver: passedOver(i),
  }));
}

/**
 * The proposers a commit passed over: those ranked before it in its admission (all of them at the
 * fallback rank); undefined when the admission was not computed from a whole window.
 */
export function passedOverBy(admission: Admission, commit: AdmissionClaim): readonly string[] | undefined {
  if (!admission.complete) return undefined;
  return admission.order.slice(0, Math.min(commit.rank, admission.order.length)).filter((p) => p !== commit.proposer);
}

/**
 * Admission when no commit before t is held at all (a tip resumed without its log): the last
 * commit's authors rank in H order and are the members, checked as strictly as a whole window.
 * Nothing is known to reorder them; the rounds recompute the admission once commits are restored.
 */
export function partialAdmission(runId: string, t: number, authors: readonly string[]): Admission {
  return { iteration: t, order: proposerOrder(runId, t, authors), expected: [...authors], members: new Set(authors), proven: new Set(), inclusions: new Map(authors.map((a) => [a, 1])), complete: true };
}

/**
 * Whether `commit`'s claimed rank holds in `admission` (the admission to its iteration): exactly,
 * when the window was whole or the commit starts a chain; loosely when it was not (demotions and
 * probation may be unknown here): the proposer is one of the expected authors, or an author of
 * its own entry at the fallback rank. `rank`: the rank computed (null: may not propose).
 */
/** What the admission rules read of a commit (a decoded one, or a claim still unverified). */
export type AdmissionClaim = Pick<Commit, "iteration" | "prevHash" | "rank" | "proposer"> & { readonly entries: readonly { readonly author: { readonly id: string } }[] };

export function rankFits(runId: string, admission: Admission, commit: AdmissionClaim): { holds: boolean; rank: number | null; checkable: boolean } {
  const start = equalBytes(commit.prevHash, ZERO_HASH);
  const authors = commit.entries.map((e) => e.author.id);
  const order = start || admission.order.length === 0 ? null : admission.order;
  if (order === null && !start) return { holds: true, rank: null, checkable: false };
  const rank = rankOf(runId, commit.iteration, order, commit.proposer, authors);
  if (rank === commit.rank) return { holds: true, rank, checkable: true };
  if (start || admission.complete) return { holds: false, rank, checkable: true };
  const loose = admission.expected.includes(commit.proposer) || (authors.includes(commit.proposer) && commit.rank === admission.order.length + 1);
  return { holds: loose, rank, checkable: false };
}

/** Admission to `t` from `before`, commits of a chain oldest first (the consecutive run ending at t - 1 is read). */
export function admissionFrom(runId: string, t: number, before: readonly Commit[]): Admission {
  return admissionAt(runId, t, windowOf(before.slice(Math.max(0, before.length - PROPOSER_WINDOW - 1))));
}

/**
 * Admission to the iteration after `commits` (a chain from its first commit, oldest first),
 * checking each commit against the admission before it as a node that applied them all does, so
 * the pass-overs are known (tests, and tools that rebuild a chain's view).
 */
export function admissionAfter(runId: string, commits: readonly Commit[]): Admission {
  const window: WindowCommit[] = [];
  let admission = startAdmission(commits[0]?.iteration ?? 0, true);
  for (const c of commits) {
    const [w] = windowOf([c]);
    window.push({ ...w, passedOver: w.first ? [] : passedOverBy(admission, c) });
    if (window.length > PROPOSER_WINDOW + 1) window.shift();
    admission = admissionAt(runId, c.iteration + 1, window);
  }
  return admission;
}
