/**
 * Finding 3 against real node processes: peers that never read. Three honest `seedswarm node`
 * processes train; four hostile libp2p hosts take every gossipsub stream the nodes open to them
 * and pause it (no yamux window update ever goes back), subscribe to every topic of the run, and
 * on each node open 16 streams per sync protocol with valid requests (the largest snapshot chunk,
 * /commits from 0, a checksum, the spec) that they never read. No node holds anything for an
 * unread stream once the serve deadline has passed (each reply was sent whole into yamux's window,
 * which a tiny run's replies fit, or the stream was reset), the nodes' memory stays flat, and the
 * swarm keeps training. Replies that block (larger than the window) and their deadline are
 * test/unit/sync/unread-replies.test.ts's, between real hosts.
 *
 * The gossip half of the cap (a paused subscriber's stream reset at 16 MiB, or its connection
 * closed by the slow-reader guard) needs more traffic than a tiny run makes in a test's time:
 * test/unit/network/slow-reader-guard.test.ts drives it between real hosts, and
 * bench/adversary-readers.ts measures both halves for 5 minutes.
 */
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { peerIdFromString } from "@libp2p/peer-id";
import type { Stream } from "@libp2p/interface";
import { lpStream } from "@libp2p/utils";
import { SERVE_DEADLINE_MS } from "../../node/sync/protocols.js";
import { PRESETS } from "../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../protocol/run-spec.js";
import { stringifyTopic, TOPIC_KINDS } from "../../protocol/topics.js";
import { cleanup, type Node, startSwarm } from "./node-process.js";
import { largestRequests, pausedSubscriber, rssMiB, unreadStreams } from "./paused-reader.js";

after(cleanup);

/** Hostile hosts; each holds one connection to every node. */
const HOSTS = 2;

const headOf = (n: Node) => Math.max(-1, ...n.lines.filter((l) => l.msg === "applied").map((l) => l.iteration ?? -1));

describe("finding 3: peers that never read (real nodes)", () => {
  it("2 paused subscribers with 16 unread streams per sync protocol each: every reply is sent whole or reset, memory stays flat, the swarm trains on", async (t) => {
    const spec = parseRunSpec({ ...PRESETS["tiny-spsa"], iterations: 100000 });
    const runId = runIdOf(spec);
    const topics = TOPIC_KINDS.map((kind) => stringifyTopic({ runId, kind }));
    const t0 = Date.now();
    const nodes = await startSwarm(3, ["--iterations", "100000", "--stop-at", "100000"]);
    const addrs = await Promise.all(nodes.map((n) => n.address()));
    const ids = addrs.map((a) => peerIdFromString(a.split("/p2p/")[1]));
    await Promise.all(nodes.map((n) => n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= 3, 60_000, "training")));
    const trained = Date.now();
    const before = nodes.map((n) => rssMiB(n.child.pid!));
    const headBefore = Math.min(...nodes.map(headOf));

    // One after another: a loaded test machine times out Noise handshakes started all at once.
    const hosts = [];
    for (let i = 0; i < HOSTS; i++) hosts.push(await pausedSubscriber(addrs, topics));
    const began = Date.now();
    try {
      const streams: Stream[] = [];
      for (const h of hosts) streams.push(...(await Promise.all(ids.map((id) => unreadStreams(h, id, largestRequests(runId))))).flat());
      const opened = Date.now();
      // HOSTS x 3 nodes x 4 protocols x 16 streams, less any that failed to open on a loaded machine.
      assert.ok(streams.length > HOSTS * 3 * 4 * 8, `${streams.length} unread streams open`);
      // What the node may still hold for a stream: nothing once it reset it (a reply not read by
      // the deadline) or sent all of its reply and its end of the stream (a reply within yamux's
      // window: the bytes wait on the hostile side, not the node's).
      const holding = () => streams.filter((s) => s.status === "open" && s.remoteWriteStatus !== "closed");
      let peak = before.slice();
      while (Date.now() - opened < SERVE_DEADLINE_MS + 10_000 && holding().length > 0) {
        peak = peak.map((p, i) => Math.max(p, rssMiB(nodes[i].child.pid!)));
        await sleep(500);
      }
      for (let i = 0; i < 6; i++) {
        peak = peak.map((p, k) => Math.max(p, rssMiB(nodes[k].child.pid!)));
        await sleep(500);
      }
      const growth = peak.map((p, i) => p - before[i]);
      const reset = streams.filter((s) => s.status !== "open").length;
      t.diagnostic(
        `rss before ${before.map((b) => b.toFixed(0)).join("/")} MiB, peak growth ${growth.map((g) => g.toFixed(1)).join("/")} MiB; ` +
          `of ${streams.length} unread streams ${reset} reset, ${streams.length - reset - holding().length} answered whole, ${holding().length} held after ${Date.now() - began} ms ` +
          `(opened in ${opened - began} ms, swarm trained after ${trained - t0} ms); ` +
          `slow readers disconnected: ${nodes.map((n) => n.lines.filter((l) => l.msg === "peer not reading what we send; disconnected").length).join("/")}`,
      );
      assert.equal(holding().length, 0, "no node holds anything for an unread stream past the serve deadline");
      // The requests reached the serve path: a reply waits, whole, in every protocol's paused streams.
      let read = 0;
      for (const [protocol] of largestRequests(runId)) {
        const answered = streams.find((s) => s.protocol === protocol && s.status === "open");
        if (!answered) continue;
        read++;
        const lp = lpStream(answered, { maxDataLength: 16 * 1024 * 1024, maxBufferSize: 16 * 1024 * 1024 + 16 });
        answered.resume();
        const reply = await lp.read({ signal: AbortSignal.timeout(5000) });
        assert.ok(reply.byteLength > 0, `${protocol} answered`);
      }
      assert.ok(read > 0, "some unread reply was there to read");
      // Under 50 MiB with some room for GC timing on a loaded machine: the byte-exact bounds are
      // test/unit/sync/unread-replies.test.ts's and slow-reader-guard.test.ts's.
      for (const g of growth) assert.ok(g < 64, `RSS grew ${g.toFixed(1)} MiB`);
      // Still connected to the paused hosts or not, the honest swarm goes on.
      await Promise.all(nodes.map((n) => n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= headBefore + 3, 30_000, "training under attack")));
    } finally {
      await Promise.all(hosts.map((h) => h.stop()));
    }
  });
});
