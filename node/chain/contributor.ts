/**
 * This node's own contribution to a round: computed on the replica, signed over the commit it is
 * made on, at most once per (iteration, parent) slot. A repair or rewind that brings the node back
 * to a slot it contributed to (with other weights, so another payload) would otherwise sign an
 * equivocation and be cut off.
 */
import { toHex } from "../../protocol/bytes.js";
import type { ContributionMessage } from "../../protocol/codec.js";
import { contributionSignedBytes, peerIdStringBytes } from "../../protocol/signing.js";
import type { Replica } from "../../training/replica.js";
import type { Author } from "../../training/rng/seeds.js";
import type { TrainingRun } from "../../training/run-context.js";
import type { Signer } from "./signatures.js";
import { BoundedSet } from "../ground/index.js";

/** Slots (iteration, parent) remembered as signed by this node: more than a repair rewinds. */
const SIGNED_SLOTS_KEPT = 4096;

/** Test fault `byzantine:<mode>`: the payload sent instead of the honest one (see RoundsOptions). */
export type Tamper = (honest: Uint8Array, other: () => Uint8Array) => Uint8Array;

export class Contributor {
  /** The slots this node signed a contribution for, recent ones, oldest first. */
  private readonly signedSlots = new BoundedSet<string>(SIGNED_SLOTS_KEPT);

  constructor(
    private readonly self: Author,
    private readonly run: Pick<TrainingRun, "runId" | "algorithm">,
    private readonly replica: Replica,
    private readonly sign: Signer,
    private readonly tamper?: Tamper,
  ) {}

  /**
   * The signed contribution for `t` made on `parentHash` (the replica's tip), measured `staleness`
   * iterations early (pipelined rounds; t = the replica's iteration + staleness); null when this
   * slot was signed already.
   */
  contribute(t: number, parentHash: Uint8Array, staleness = 0): ContributionMessage | null {
    const slot = `${t}/${toHex(parentHash)}`;
    if (this.signedSlots.has(slot)) return null;
    this.signedSlots.add(slot);
    const { algorithm } = this.run;
    const honest = algorithm.contribute(this.replica, this.self, t);
    const tamper = this.tamper;
    const payload = tamper ? tamper(honest, () => algorithm.contribute(this.replica, { id: `${this.self.id}/other`, joinedAt: this.self.joinedAt }, t)) : honest;
    const m: ContributionMessage = {
      runId: this.run.runId,
      iteration: t,
      // The author field of what this node signs: its peer id's multihash bytes (cached by id).
      author: peerIdStringBytes(this.self.id),
      joinedAt: this.self.joinedAt,
      payload,
      parentHash,
      signature: new Uint8Array(0),
      ...(staleness > 0 ? { staleness } : {}),
    };
    return { ...m, signature: this.sign(contributionSignedBytes(m)) };
  }
}
