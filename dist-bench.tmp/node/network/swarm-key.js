/**
 * The private swarm key (`--swarm-key`): a 32-byte pre-shared key in the go-ipfs/libp2p
 * `swarm.key` format, which libp2p's `@libp2p/pnet` uses to encrypt every connection before
 * anything else is spoken (docs/security.md, "Membership modes"). A peer without the same key
 * cannot complete a connection: no identify, no DHT, no gossip.
 *
 *   /key/swarm/psk/1.0.0/
 *   /base16/
 *   <64 lowercase hex digits>
 */
import { readFile } from "node:fs/promises";
import { SeedswarmError } from "../../protocol/errors.js";
import { checkNewFile } from "../ops/preflight.js";
import { writeFileAtomic } from "../store/atomic-file.js";
/** A swarm key file that cannot be read or is not a swarm key; the message names the file. */
export class SwarmKeyError extends SeedswarmError {
}
const TAG = "/key/swarm/psk/1.0.0/";
const CODEC = "/base16/";
const KEY = /^[0-9a-f]{64}$/;
/** Far larger than a key file (95 bytes): refuses to read a wrong, huge file into memory. */
const MAX_FILE_BYTES = 4096;
/**
 * The key file's bytes in the canonical form `@libp2p/pnet` reads, checked line by line (pnet
 * itself only checks the key's length, and reads a wrong codec line as hex anyway).
 *
 * @throws SwarmKeyError SWARM_KEY_MISSING (unreadable) or SWARM_KEY_MALFORMED, naming the file.
 */
export async function readSwarmKey(path) {
    let bytes;
    try {
        bytes = await readFile(path);
    }
    catch (err) {
        const code = err.code ?? err.message;
        throw new SwarmKeyError("SWARM_KEY_MISSING", `swarm key ${path}: cannot read it (${code}; seedswarm swarm-key makes one)`, {
            path,
        });
    }
    const bad = (problem) => {
        throw new SwarmKeyError("SWARM_KEY_MALFORMED", `swarm key ${path}: ${problem}`, { path });
    };
    if (bytes.length > MAX_FILE_BYTES)
        bad(`${bytes.length} bytes; a swarm key file is 95`);
    const lines = bytes.toString("utf8").trim().split(/\r?\n/);
    if (lines.length !== 3)
        bad(`expected 3 lines (${TAG}, ${CODEC}, the key), got ${lines.length}`);
    const [tag, codec, key] = lines.map((l) => l.trim());
    if (tag !== TAG)
        bad(`first line must be ${TAG}`);
    if (codec !== CODEC)
        bad(`second line must be ${CODEC} (the only encoding supported)`);
    if (!KEY.test(key))
        bad("third line must be the key: 64 lowercase hex digits (32 bytes)");
    return new TextEncoder().encode(`${TAG}\n${CODEC}\n${key}`);
}
/**
 * Writes a new random swarm key to `path`, readable by its owner only (0600 from creation);
 * refuses to replace an existing file unless `force`.
 *
 * @throws PreflightError FILE_EXISTS or DIR_UNUSABLE before anything is written.
 */
export async function writeSwarmKey(path, force) {
    await checkNewFile(path, force, "swarm key file");
    // Loaded here: the rest of the CLI (and --help) need not load libp2p's modules.
    const { generateKey } = await import("@libp2p/pnet");
    const key = new Uint8Array(TAG.length + CODEC.length + 64 + 2);
    generateKey(key);
    await writeFileAtomic(path, Buffer.concat([key, Buffer.from("\n")]), { mode: 0o600 });
}
//# sourceMappingURL=swarm-key.js.map