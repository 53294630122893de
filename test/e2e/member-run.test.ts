/**
 * A member run (docs/security.md, "Membership modes") on the real wire: two member node processes
 * and a non-member with a valid identity that joins the gossip and publishes well-formed
 * contributions, commits naming itself and heartbeats for the live iterations, and asks for state.
 * The members must train identically, never apply anything it sent, and refuse it everywhere; a
 * daemon started with a non-member identity must refuse to start.
 */
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { multiaddr } from "@multiformats/multiaddr";
import { createSwarmNode, defaultNetworkOptions } from "../../node/network/libp2p.js";
import { createLogger } from "../../node/ground/index.js";
import { loadOrCreateIdentity } from "../../node/store/identity.js";
import { fetchChecksum, fetchRunSpec } from "../../node/sync/protocols.js";
import { signCommit } from "../../node/chain/commit-wire.js";
import { signerOf } from "../../node/chain/signatures.js";
import { encodeContribution } from "../../protocol/codec.js";
import { signedHeartbeat } from "../helpers/chain-keys.js";
import { contributionSignedBytes } from "../../protocol/signing.js";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { stringifyTopic, TOPIC_KINDS } from "../../protocol/topics.js";
import { cleanup, Node, tempDir } from "./node-process.js";

after(cleanup);

/** A join time inside the bounds validation checks (protocol/signing.ts checkJoinedAt). */
const JOINED_AT = Date.now();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("member run", () => {
  it("two members train identically; a non-member's messages, commits and requests are refused", async () => {
    const stopAt = 80;
    const dirs = await Promise.all([tempDir(), tempDir(), tempDir()]);
    const [a, b, stranger] = await Promise.all(dirs.map((d) => loadOrCreateIdentity(d)));
    const members = [a, b].map((i) => i.peerId.toString());
    const memberArgs = members.flatMap((m) => ["--member", m]);
    const spec = parseRunSpec({ ...PRESETS["tiny-spsa"], members });
    const runId = runIdOf(spec);
    const args = [...memberArgs, "--stop-at", String(stopAt), "--log-level", "debug"];

    // The stranger's own daemon refuses to start: it would train alone, unheard.
    const refused = new Node(dirs[2], args);
    assert.equal((await refused.exit).code, 1);
    assert.match(refused.stderr, /NODE_NOT_MEMBER/);
    assert.match(refused.stderr, new RegExp(stranger.peerId.toString()));

    const first = new Node(dirs[0], [...args, "--join-wait", "15000", "--min-peers", "1"]);
    const second = new Node(dirs[1], [...args, "--bootstrap", await first.address()]);
    const nodes = [first, second];

    const attacker = await createSwarmNode(
      { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false, bootstrap: [], gossipHeartbeatMs: 100 },
      stranger.privateKey,
      createLogger({ level: "silent" }),
    );
    const topics = Object.fromEntries(TOPIC_KINDS.map((kind) => [kind, stringifyTopic({ runId, kind })]));
    try {
      for (const n of nodes) await attacker.dial(multiaddr(await n.address()));
      for (const t of Object.values(topics)) attacker.services.pubsub.subscribe(t);
      await first.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 5, 20_000, "iteration 5");
      for (let i = 0; i < 50 && attacker.services.pubsub.getSubscribers(topics.contribution).length < 2; i++)
        await sleep(100);
      const head = () => Math.max(...first.lines.filter((l) => l.msg === "applied").map((l) => l.iteration ?? 0));

      // Well-formed messages for the live iterations, as a member would send them, until the run ends.
      // One of each kind first: after a few rejects gossipsub graylists the sender and drops its
      // messages before they reach validation (and the log).
      // Signed with the stranger's real key: only the membership check can refuse them.
      const sign = signerOf(stranger.privateKey);
      const payload = new Uint8Array(8).fill(100);
      const parentHash = new Uint8Array(32);
      const strangerKey = { sign, bytes: stranger.peerId.toMultihash().bytes };
      const contribution = (iteration: number) => {
        const m = { runId, iteration, author: strangerKey.bytes, joinedAt: JOINED_AT, payload, parentHash, signature: new Uint8Array(0) };
        return { ...m, signature: sign(contributionSignedBytes(m)) };
      };
      let sent = 0;
      const flood = (async () => {
        while (nodes.some((n) => n.child.exitCode === null) && head() < stopAt - 2) {
          const t = head() + 1;
          const pubs = [
            [topics.contribution, encodeContribution(contribution(t))],
            [
              topics.commit,
              signCommit(
                {
                  runId,
                  iteration: t,
                  prevHash: parentHash,
                  checksum: new Uint8Array(32),
                  rank: 0,
                  proposer: attacker.peerId.toString(),
                  entries: [{ author: { id: attacker.peerId.toString(), joinedAt: JOINED_AT }, payload, signature: contribution(t).signature }],
                },
                sign,
              ).encoded,
            ],
            [topics.heartbeat, signedHeartbeat(strangerKey, { runId, iteration: t + 2, checksum: new Uint8Array(32), joinedAt: JOINED_AT })],
            [topics.contribution, encodeContribution(contribution(t + 1))],
          ] as const;
          for (const [topic, data] of pubs) {
            await attacker.services.pubsub.publish(topic, data).catch(() => {});
            sent++;
          }
          await sleep(40);
        }
      })();

      // Its requests get no answer: no spec, no checksum.
      for (const n of nodes) {
        const peer = attacker.getPeers().find((p) => n.lines.some((l) => l.msg === "node started" && l.peerId === p.toString()));
        assert.ok(peer, "attacker connected to the member");
        await assert.rejects(fetchRunSpec(attacker, peer, runId, 3000));
        await assert.rejects(fetchChecksum(attacker, peer, runId, undefined, 3000));
      }

      const exits = await Promise.all(nodes.map((n) => n.exit));
      await flood;
      assert.ok(sent >= 20, `the non-member published ${sent} messages`);
      for (const e of exits) assert.equal(e.code, 0, "no member crashed");

      // Identical training: the same checksum after every iteration both applied, and at the end.
      const [ca, cb] = nodes.map((n) => n.checksums());
      for (let t = 1; t <= stopAt; t++) assert.equal(ca.get(t), cb.get(t), `iteration ${t}`);
      const results = nodes.map((n) => n.result());
      assert.deepEqual(
        results.map((r) => [r.iteration, r.checksum]),
        [
          [stopAt, results[0].checksum],
          [stopAt, results[0].checksum],
        ],
      );
      const attackerId = attacker.peerId.toString();
      for (const n of nodes) {
        const commits = n.commits();
        assert.ok(commits.length >= stopAt - 1);
        assert.ok(commits.every((c) => c.entries.every((e) => members.includes(e.author))), "only members' entries applied");
        assert.ok(commits.some((c) => c.entries.length === 2), "both members contributed");
      }
      // Every kind it sent was refused as a non-member's, at both members.
      for (const n of nodes) {
        const kinds = new Set(
          n.lines
            .filter((l) => l.msg === "gossip not accepted" && l.from === attackerId && l.code === "NOT_MEMBER")
            .map((l) => `${l.kind}:${l.verdict}`),
        );
        for (const want of ["contribution:reject", "commit:reject", "heartbeat:reject"])
          assert.ok(kinds.has(want), `expected ${want}; saw ${[...kinds].join(", ")}`);
        assert.ok(n.lines.some((l) => l.msg === "request from a non-member refused" && l.peer === attackerId));
      }
    } finally {
      await attacker.stop();
    }
  });
});
