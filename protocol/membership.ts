/**
 * Who may take part in a run. An open run (no `members` in its RunSpec) admits every peer; a
 * member run admits only the peer ids its spec lists. The list is part of the runId's hash, so a
 * node that knows the runId knows the members, and no peer can add itself. What a member run
 * drops, and where, is written in docs/security.md ("Membership modes").
 */
import { MAX_COMMIT_ENTRIES, OPEN_SEATS } from "./limits.js";
import type { RunSpec } from "./run-spec.js";

export class Membership {
  private readonly members: ReadonlySet<string> | null;

  private constructor(members: readonly string[] | undefined) {
    this.members = members ? new Set(members) : null;
  }

  /** The membership a spec defines. */
  static of(spec: RunSpec): Membership {
    return new Membership(spec.members);
  }

  /** Every peer: an open run, or a node that does not know the spec yet (joining by runId). */
  static readonly OPEN = new Membership(undefined);

  /** True for an open run. */
  get open(): boolean {
    return this.members === null;
  }

  /** Members listed by the spec (0 for an open run). */
  get size(): number {
    return this.members?.size ?? 0;
  }

  /** Most entries a commit of the run may hold: OPEN_SEATS in an open run (limits.ts), else MAX_COMMIT_ENTRIES. */
  get seats(): number {
    return this.members === null ? OPEN_SEATS : MAX_COMMIT_ENTRIES;
  }

  /** Whether messages, requests and records of this peer id (canonical string) count. */
  admits(peerId: string): boolean {
    return this.members === null || this.members.has(peerId);
  }
}
