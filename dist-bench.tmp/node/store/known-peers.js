/**
 * `<run dir>/peers.json`: the addresses the run's peers listened on at the last checkpoint, each
 * with its `/p2p/<peer id>`. A node restarted with its data dir dials them beside its bootstrap
 * peers: the one address it was started with may be gone (a reclaimed bootstrap VM, a churned
 * node restarted on another port), and a node that reaches nobody would start committing alone,
 * on a chain nobody else follows, never to meet the swarm again. A dial checks the peer id (Noise),
 * so a stale address that now belongs to someone else connects to nothing.
 */
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "./atomic-file.js";
/** Addresses kept: a few per peer for a handful of peers is enough to find the swarm again. */
export const KNOWN_PEERS_KEPT = 32;
/** The addresses kept at `path` (none when the file is missing or unreadable: it is only a hint). */
export async function readKnownPeers(path) {
    try {
        const parsed = JSON.parse(await readFile(path, "utf8"));
        if (!Array.isArray(parsed))
            return [];
        return parsed.filter((a) => typeof a === "string" && a.includes("/p2p/")).slice(0, KNOWN_PEERS_KEPT);
    }
    catch {
        return [];
    }
}
/** Replaces the addresses kept at `path` (atomically; at most KNOWN_PEERS_KEPT, only `/p2p/` ones). */
export async function writeKnownPeers(path, addrs) {
    const kept = [...new Set(addrs.filter((a) => a.includes("/p2p/")))].slice(0, KNOWN_PEERS_KEPT);
    await writeFileAtomic(path, Buffer.from(`${JSON.stringify(kept)}\n`));
}
//# sourceMappingURL=known-peers.js.map