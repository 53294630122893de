/**
 * Whether our contributions get into the commits we apply. A node far slower per contribution
 * than the swarm's rounds sends contributions that arrive after their commit; it would spend its
 * CPU with no sign of it. After LEFT_OUT_REPORT commits in a row without an entry of ours (and
 * every LEFT_OUT_REPORT x 10 more) the rounds report "left out", with our moving averages of one
 * contribution's compute and of a round.
 */

/** Commits in a row without an entry of ours after which the rounds report it ("left out"). */
export const LEFT_OUT_REPORT = 20;
/** A contribution of ours that takes this many rounds of the swarm or more is a slow one (the "left out" warning says so). */
export const SLOW_CONTRIBUTION_ROUNDS = 4;

/** What a "left out" report carries. */
export interface LeftOut {
  readonly iteration: number;
  /** Commits in a row without an entry of ours. */
  readonly commits: number;
  /** Moving averages (ms) of one contribution's compute and of a round. */
  readonly contributionMs: number;
  readonly roundMs: number;
}

/** An exponential moving average over about the last 10 values (the first value as is). */
function movingAverage(avg: number, x: number): number {
  return avg === 0 ? x : avg + 0.1 * (x - avg);
}

export class LeftOutWatch {
  /** Commits applied in a row, since our first contribution, without an entry of ours. */
  private run = 0;
  private contributed = false;
  private contributionMs = 0;
  private roundMs = 0;

  /**
   * Computes one contribution of ours (`compute`), timed; null (the slot was signed already,
   * nothing computed) does not count, or it would pull the average towards zero.
   */
  timed<T>(compute: () => T | null): T | null {
    const began = performance.now();
    const out = compute();
    if (out !== null) {
      this.contributionMs = movingAverage(this.contributionMs, performance.now() - began);
      this.contributed = true;
    }
    return out;
  }

  /**
   * Commit `iteration` was applied, its round `ms` long; `ours`: whether it holds an entry of ours
   * (null: it does not count, while we do not contribute or for a commit of our own, which holds
   * our entry whether or not what we send arrives: a muted node committing at a fallback rank,
   * then back on the others' chain, would start its streak again). The report, when one is due.
   */
  applied(iteration: number, ms: number, ours: boolean | null): LeftOut | null {
    this.roundMs = movingAverage(this.roundMs, ms);
    if (ours === null || !this.contributed) return null;
    if (ours) {
      this.run = 0;
      return null;
    }
    this.run++;
    if (this.run !== LEFT_OUT_REPORT && this.run % (10 * LEFT_OUT_REPORT) !== 0) return null;
    return { iteration, commits: this.run, contributionMs: this.contributionMs, roundMs: this.roundMs };
  }
}
