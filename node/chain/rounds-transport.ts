/** How the rounds reach the swarm (rounds.ts): publishing and signing, given by the daemon. */
import type { ContributionMessage } from "../../protocol/codec.js";
import type { Signer } from "./signatures.js";

export interface RoundsTransport {
  /** Publishes this node's signed contribution. */
  publishContribution(m: ContributionMessage): Promise<void>;
  /** Publishes an encoded, signed commit. */
  publishCommit(encoded: Uint8Array): Promise<void>;
  /** Signs with this node's identity key (the key of `self.id`). */
  sign: Signer;
}
