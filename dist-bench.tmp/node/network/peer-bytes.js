import { peerIdFromMultihash, peerIdFromString } from "@libp2p/peer-id";
import * as Digest from "multiformats/hashes/digest";
/** A peer id (or its string form) -> the multihash bytes. */
export function peerIdBytes(peer) {
    return (typeof peer === "string" ? peerIdFromString(peer) : peer).toMultihash().bytes;
}
/** Multihash bytes -> the peer id. */
export function peerIdOfBytes(bytes) {
    return peerIdFromMultihash(Digest.decode(bytes));
}
//# sourceMappingURL=peer-bytes.js.map