/**
 * This node's side of the signatures (protocol/signing.ts says what is signed): signing with the
 * node's identity key, and a verifier that remembers what it verified, so a contribution checked
 * on gossip is not checked again when it comes back inside a commit, and a key is imported once.
 */
import crypto, { createHash, createPrivateKey, type KeyObject, sign } from "node:crypto";
import type { PrivateKey } from "@libp2p/interface";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { SIGNATURE_BYTES } from "../../protocol/limits.js";
import { SeedswarmError } from "../../protocol/errors.js";
import { BoundedLru } from "../ground/index.js";
import { ed25519KeyOfPeerId, ed25519PublicKey, type SignatureCheck, verifyEd25519 } from "../../protocol/signing.js";

export interface VerifierOptions {
  /** Signatures remembered as valid: a few rounds' worth of contributions of a large swarm. */
  readonly verified: number;
  /** Public keys kept imported: the authors of a large swarm. */
  readonly keys: number;
}

export const defaultVerifierOptions: VerifierOptions = {
  // 8 rounds of 1,024 authors, ~100 bytes an entry.
  verified: 8192,
  // One per author of a large swarm (~250 bytes a key object).
  keys: 4096,
};

/** Node >= 20.12 hashes in one call (no Hash object): a quarter of the cost of a cache hit. */
const oneShotHash = (crypto as { hash?: typeof crypto.hash }).hash;

/** SHA-256 of the bytes as a 32-character string ("binary" = latin1: the cheapest Map key). */
function digestKey(bytes: Uint8Array): string {
  return oneShotHash ? oneShotHash("sha256", bytes, "binary") : createHash("sha256").update(bytes).digest("binary");
}

/**
 * Ed25519 verification with two bounded caches: imported public keys (a KeyObject per author:
 * importing one costs about as much as a verification) and successes (failures are never cached).
 */
export class SignatureVerifier {
  private readonly keys: BoundedLru<string, KeyObject>;
  private readonly verified: BoundedLru<string, true>;
  /** Verifications done, answered from the cache, and keys imported (for the benchmark and tests). */
  readonly counts = { verified: 0, cached: 0, imported: 0 };

  constructor(opts: VerifierOptions = defaultVerifierOptions) {
    this.keys = new BoundedLru(opts.keys);
    this.verified = new BoundedLru(opts.verified);
  }

  /** Entries held by each cache (for tests: both are bounded). */
  get sizes(): { keys: number; verified: number } {
    return { keys: this.keys.size, verified: this.verified.size };
  }

  /**
   * The check gossip validation and the commits protocol use. A success is remembered under
   * SHA-256 of (signer, signature, message), so a hit proves these exact bytes verified before:
   * the signature is in the key so that a commit carrying a wrong signature over bytes we once
   * verified is refused here exactly as on a node that never saw them, and signer and signature
   * have fixed lengths (checked first), so the hashed string splits one way only.
   */
  readonly check: SignatureCheck = (signer, message, signature) => {
    if (signature.byteLength !== SIGNATURE_BYTES) return false;
    const raw = ed25519KeyOfPeerId(signer);
    if (!raw) return false;
    const key = digestKey(Buffer.concat([signer, signature, message]));
    if (this.verified.get(key)) {
      this.counts.cached++;
      return true;
    }
    const rawKey = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("latin1");
    let pub = this.keys.get(rawKey);
    if (!pub) {
      pub = ed25519PublicKey(raw);
      this.keys.set(rawKey, pub);
      this.counts.imported++;
    }
    this.counts.verified++;
    const ok = verifyEd25519(pub, message, signature);
    if (ok) this.verified.set(key, true);
    return ok;
  };

  /**
   * Records a signature this process made itself (signerOf with this verifier): our own
   * contribution comes back inside every commit, and verifying our own signature there would
   * cost a verification per iteration. Never for bytes from the network.
   */
  remember(signer: Uint8Array, message: Uint8Array, signature: Uint8Array): void {
    if (signature.byteLength !== SIGNATURE_BYTES || !ed25519KeyOfPeerId(signer)) return;
    this.verified.set(digestKey(Buffer.concat([signer, signature, message])), true);
  }
}

/** The one verifier of a process: gossip and the commits protocol share its cache. */
export const sharedVerifier = new SignatureVerifier();

/** Signs with this node's key; synchronous (OpenSSL), so the rounds can sign where they decide. */
export type Signer = (message: Uint8Array) => Uint8Array;

export class SignerError extends SeedswarmError<"SIGNER_NOT_ED25519"> {}

/** PKCS#8 DER header of an Ed25519 private key, before its 32-byte seed. */
const ED25519_PKCS8_PREFIX = Uint8Array.of(
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
);

/**
 * A Signer from the node's libp2p identity key (Ed25519 only: others cannot author). With a
 * verifier, every signature it makes is remembered there as verified (see remember).
 */
export function signerOf(key: PrivateKey, verifier?: SignatureVerifier): Signer {
  if (key.type !== "Ed25519")
    throw new SignerError("SIGNER_NOT_ED25519", "only an Ed25519 identity can sign contributions and commits", { type: key.type });
  const seed = key.raw.subarray(0, 32);
  const der = new Uint8Array(ED25519_PKCS8_PREFIX.byteLength + 32);
  der.set(ED25519_PKCS8_PREFIX, 0);
  der.set(seed, ED25519_PKCS8_PREFIX.byteLength);
  const priv = createPrivateKey({ key: Buffer.from(der), format: "der", type: "pkcs8" });
  if (!verifier) return (message) => new Uint8Array(sign(null, message, priv));
  const self = peerIdFromPrivateKey(key).toMultihash().bytes;
  return (message) => {
    const signature = new Uint8Array(sign(null, message, priv));
    verifier.remember(self, message, signature);
    return signature;
  };
}
