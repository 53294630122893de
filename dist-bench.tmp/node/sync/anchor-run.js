import { equalBytes, toHex } from "../../protocol/bytes.js";
import { chained, rankOf } from "../chain/commit.js";
import { commitFromBytes } from "../chain/commit-wire.js";
import { PENALTY } from "../chain/penalties.js";
import { fetchCommits } from "./protocols.js";
/**
 * A commits reply, verified exactly like gossip: each commit's signatures here (commitFromBytes,
 * the check gossip validation runs); its rank and checksum are the caller's to check. Stops at the
 * first commit that fails (its server is charged); returns the commits before it, in order.
 */
export function verifiedReply(s, peer, got) {
    const out = [];
    for (const bytes of got) {
        try {
            out.push(commitFromBytes(bytes));
        }
        catch (err) {
            const reason = `served a commit that does not verify: ${err.message}`;
            s.log.warn({ peer: peer.toString(), reason }, "commits reply refused");
            s.blame?.(peer.toString(), reason, PENALTY.badReply);
            break;
        }
    }
    return out;
}
/**
 * A joiner's anchor (no chain of its own there yet): the commit for `from` served by `peer`, if
 * it and the commits the peer serves after it form a linked run: each verified as gossip
 * verifies (commitFromBytes), of this run, consecutive, chained by hash, and from the second on
 * at the rank its proposer holds among the previous commit's authors. The first commit's rank
 * cannot be checked (its predecessor's authors are unknown): docs/security.md, attack 5.
 */
export async function anchorRun(s, peer, from) {
    const got = await fetchCommits(s.libp2p, peer, s.runId, from).catch(() => []);
    // In a member run, a run with a non-member proposer or author is no run of ours (gossip drops
    // such commits; /commits replies are checked here), so Sybils cannot anchor a joiner there.
    const admitted = (c) => s.peers.admits(c.commit.proposer) && c.commit.entries.every((e) => s.peers.admits(e.author.id));
    const verified = verifiedReply(s, peer, got);
    const cut = verified.findIndex((c) => !admitted(c));
    const run = cut < 0 ? verified : verified.slice(0, cut);
    const first = run[0];
    if (!first || first.commit.iteration !== from || first.commit.runId !== s.runId)
        return null;
    let prev = chained(first);
    for (const next of run.slice(1)) {
        const { commit } = next;
        if (commit.iteration !== prev.commit.iteration + 1 || !equalBytes(commit.prevHash, prev.hash))
            break;
        const eligible = prev.commit.entries.map((e) => e.author.id);
        const rank = rankOf(s.runId, commit.iteration, eligible, commit.proposer, commit.entries.map((e) => e.author.id));
        if (rank !== commit.rank) {
            s.log.warn({ peer: peer.toString(), iteration: commit.iteration }, "anchor run: a commit at a rank its proposer does not hold");
            return null;
        }
        prev = chained(next);
    }
    return first;
}
/**
 * What vouches for a snapshot at `iteration` that our own chain does not reach: at iteration 0 the
 * run's initial checksum (`initialChecksum`: a transformer spec's model.weightsHash; null: none
 * known, a snapshot at 0 is refused), later the head of an anchor run served by a connected peer
 * (peers that do not serve the snapshot asked first). Never a holder's word.
 */
export async function joinerReference(s, iteration, holders, initialChecksum) {
    if (iteration === 0)
        return initialChecksum === null ? null : { checksum: initialChecksum, anchor: null };
    const serving = new Set(holders.map(String));
    const connected = s.peers.connected();
    const order = [...connected.filter((p) => !serving.has(p.toString())), ...connected.filter((p) => serving.has(p.toString()))];
    for (const peer of order) {
        const run = await anchorRun(s, peer, iteration - 1);
        if (run)
            return { checksum: toHex(run.commit.checksum), anchor: run };
    }
    return null;
}
//# sourceMappingURL=anchor-run.js.map