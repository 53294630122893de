/**
 * Peer ids as bytes on the wire: the multihash a commit entry or an expert record carries, and
 * back. One conversion, so every side of every exchange hashes and compares the same bytes.
 */
import type { PeerId } from "@libp2p/interface";
import { peerIdFromMultihash, peerIdFromString } from "@libp2p/peer-id";
import * as Digest from "multiformats/hashes/digest";

/** A peer id (or its string form) -> the multihash bytes. */
export function peerIdBytes(peer: PeerId | string): Uint8Array {
  return (typeof peer === "string" ? peerIdFromString(peer) : peer).toMultihash().bytes;
}

/** Multihash bytes -> the peer id. */
export function peerIdOfBytes(bytes: Uint8Array): PeerId {
  return peerIdFromMultihash(Digest.decode(bytes));
}
