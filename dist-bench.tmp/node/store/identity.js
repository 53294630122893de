/**
 * The node's persistent identity: one Ed25519 key under the data directory, so the peer id (and
 * with it the author field of every contribution and the join timestamp order) survives restarts.
 *
 * The key file holds the libp2p protobuf encoding of the private key (the format go-libp2p and
 * js-libp2p read). It is created once, atomically (temp file, fsync, rename, mode 0600); a file
 * that exists but cannot be read or decoded is an error, never silently replaced: a new key would
 * make this node a stranger to the swarm it belongs to.
 */
import { readFile } from "node:fs/promises";
import { identityPath } from "./data-dir.js";
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { SeedswarmError } from "../../protocol/errors.js";
import { writeFileAtomic } from "./atomic-file.js";
/** The key file exists but is unusable; context: `{ path, cause }`. */
export class IdentityError extends SeedswarmError {
}
/**
 * Loads the node key from `<dataDir>/identity.key`, or generates and stores a new Ed25519 key
 * when the file does not exist.
 *
 * @throws IdentityError IDENTITY_UNREADABLE when the file exists but cannot be read,
 *   IDENTITY_CORRUPT when its bytes are not a private key.
 */
export async function loadOrCreateIdentity(dataDir) {
    const existing = await readIdentity(dataDir);
    if (existing !== null)
        return existing;
    const path = identityPath(dataDir);
    const privateKey = await generateKeyPair("Ed25519");
    // 0600 at creation: the key is a secret.
    await writeFileAtomic(path, privateKeyToProtobuf(privateKey), { mode: 0o600 });
    return { privateKey, peerId: peerIdFromPrivateKey(privateKey), created: true };
}
/**
 * Loads the node key from `<dataDir>/identity.key`; null when there is none (nothing is created).
 *
 * @throws IdentityError as `loadOrCreateIdentity`.
 */
export async function readIdentity(dataDir) {
    const path = identityPath(dataDir);
    const bytes = await readKeyFile(path);
    if (bytes === null)
        return null;
    const privateKey = decodeKey(path, bytes);
    return { privateKey, peerId: peerIdFromPrivateKey(privateKey), created: false };
}
/** The file's bytes, or null when it does not exist. */
async function readKeyFile(path) {
    try {
        return await readFile(path);
    }
    catch (err) {
        if (err.code === "ENOENT")
            return null;
        throw new IdentityError("IDENTITY_UNREADABLE", `identity key ${path}: cannot read it (${err.code ?? err.message})`, {
            path,
            cause: err.message,
        });
    }
}
function decodeKey(path, bytes) {
    try {
        return privateKeyFromProtobuf(bytes);
    }
    catch (err) {
        throw new IdentityError("IDENTITY_CORRUPT", `identity key ${path}: not a libp2p private key (restore it, or delete it to get a new peer id)`, { path, bytes: bytes.length, cause: err.message });
    }
}
//# sourceMappingURL=identity.js.map