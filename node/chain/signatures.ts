/**
 * This node's side of the signatures (protocol/signing.ts says what is signed): signing with the
 * node's identity key, and a verifier that remembers what it verified, so a contribution checked
 * on gossip is not checked again when it comes back inside a commit, and a key is imported once.
 */
import { createHash, createPrivateKey, type KeyObject, sign } from "node:crypto";
import type { PrivateKey } from "@libp2p/interface";
import { toHex } from "../../protocol/bytes.js";
import { SeedswarmError } from "../../protocol/errors.js";
import { ed25519KeyOfPeerId, ed25519PublicKey, type SignatureCheck, verifyEd25519 } from "../../protocol/signing.js";

/** A Map that forgets its least recently used entry past `max`. */
export class BoundedLru<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly max: number) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }

  get size(): number {
    return this.map.size;
  }
}

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

/** Ed25519 verification with a bounded cache of successes (failures are never cached). */
export class SignatureVerifier {
  private readonly keys: BoundedLru<string, KeyObject>;
  private readonly verified: BoundedLru<string, true>;
  /** Verifications done and answered from the cache (for the benchmark and logs). */
  readonly counts = { verified: 0, cached: 0 };

  constructor(opts: VerifierOptions = defaultVerifierOptions) {
    this.keys = new BoundedLru(opts.keys);
    this.verified = new BoundedLru(opts.verified);
  }

  /**
   * The check gossip validation and the commits protocol use. Cached by SHA-256 of (signer,
   * signature, message): the signature is in the key so that a commit carrying a wrong signature
   * over bytes we once verified is refused here exactly as on a node that never saw them.
   */
  readonly check: SignatureCheck = (signer, message, signature) => {
    const raw = ed25519KeyOfPeerId(signer);
    if (!raw) return false;
    const key = createHash("sha256").update(signer).update(signature).update(message).digest("hex");
    if (this.verified.get(key)) {
      this.counts.cached++;
      return true;
    }
    const rawHex = toHex(raw);
    let pub = this.keys.get(rawHex);
    if (!pub) {
      pub = ed25519PublicKey(raw);
      this.keys.set(rawHex, pub);
    }
    this.counts.verified++;
    const ok = verifyEd25519(pub, message, signature);
    if (ok) this.verified.set(key, true);
    return ok;
  };
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

/** A Signer from the node's libp2p identity key (Ed25519 only: others cannot author). */
export function signerOf(key: PrivateKey): Signer {
  if (key.type !== "Ed25519")
    throw new SignerError("SIGNER_NOT_ED25519", "only an Ed25519 identity can sign contributions and commits", { type: key.type });
  const seed = key.raw.subarray(0, 32);
  const der = new Uint8Array(ED25519_PKCS8_PREFIX.byteLength + 32);
  der.set(ED25519_PKCS8_PREFIX, 0);
  der.set(seed, ED25519_PKCS8_PREFIX.byteLength);
  const priv = createPrivateKey({ key: Buffer.from(der), format: "der", type: "pkcs8" });
  return (message) => new Uint8Array(sign(null, message, priv));
}
