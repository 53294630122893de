// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { type Message, TopicValidatorResult } from "@libp2p/gossipsub";
import { IdentityError, loadOrCreateIdentity } from "../../node/store/identity.js";
import { identityPath } from "../../node/store/data-dir.js";
import {
  createSwarmNode,
  defaultNetworkOptions,
  type NetworkOptions,
  runIdCid,
  type SwarmNode,
} from "../../node/network/libp2p.js";
import { createLogger } from "../../node/ground/index.js";

const log = createLogger({ level: "silent" });
const TOPIC = "/seedswarm/1/e2e-test/contribution";
/** Payload the test validator rejects, standing in for a malformed message. */
const MARKER = "INVALID";
const text = new TextDecoder();
const bytes = (s: string) => new TextEncoder().encode(s);

/** Polls `cond` every 20 ms; fails with `what` after `ms`. */
async function waitFor(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The application side of asyncValidation: validate every gossip message, report the verdict,
 * and hand only accepted ones to the app (here: the `delivered` list).
 */
function deliverValidated(node: SwarmNode): Message[] {
  const delivered: Message[] = [];
  const pubsub = node.services.pubsub;
  pubsub.addEventListener("gossipsub:message", (evt) => {
    const { msg, msgId, propagationSource } = evt.detail;
    const verdict =
      text.decode(msg.data) === MARKER ? TopicValidatorResult.Reject : TopicValidatorResult.Accept;
    pubsub.reportMessageValidationResult(msgId, propagationSource.toString(), verdict);
    if (verdict === TopicValidatorResult.Accept) delivered.push(msg);
  });
  return delivered;
}

const has = (msgs: Message[], data: string) => msgs.some((m) => text.decode(m.data) === data);

describe("libp2p host: three nodes on loopback", () => {
  const dirs: string[] = [];
  let a: SwarmNode;
  let b: SwarmNode;
  let c: SwarmNode;
  let got: { a: Message[]; b: Message[]; c: Message[] };

  const netOpts = (bootstrap: string[]): NetworkOptions => ({
    ...defaultNetworkOptions,
    listen: ["/ip4/127.0.0.1/tcp/0"],
    bootstrap,
    mdns: false,
    scoredTopics: [TOPIC],
    // Fast mesh upkeep and score refresh: the test waits on both.
    gossipHeartbeatMs: 100,
  });

  before(async () => {
    a = await createSwarmNode(netOpts([]), await generateKeyPair("Ed25519"), log);
    const addrA = a.getMultiaddrs()[0].toString();
    [b, c] = await Promise.all([
      createSwarmNode(netOpts([addrA]), await generateKeyPair("Ed25519"), log),
      createSwarmNode(netOpts([addrA]), await generateKeyPair("Ed25519"), log),
    ]);
    got = { a: deliverValidated(a), b: deliverValidated(b), c: deliverValidated(c) };
  });

  after(async () => {
    await Promise.all([a, b, c].filter((n) => n !== undefined).map((n) => n.stop()));
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("B and C connect to A through bootstrap", async () => {
    await waitFor("connections to A", () =>
      [b, c].every(
        (n) => n.getConnections(a.peerId).length > 0 && a.getConnections(n.peerId).length > 0,
      ),
    );
  });

  it("delivers A's message to B and C, with no envelope signature", async () => {
    for (const n of [a, b, c]) n.services.pubsub.subscribe(TOPIC);
    // Both directions: a peer's subscriptions travel on its own outbound stream, so B seeing A
    // subscribed means A's stream to B is open. A subscription can arrive before the stream back
    // is open, and a publish in that gap skips the peer (gossipsub does not queue).
    const subscribed = (from: SwarmNode, to: SwarmNode) =>
      from.services.pubsub.getSubscribers(TOPIC).some((p) => p.equals(to.peerId));
    await waitFor("A and B, A and C to see each other subscribed", () =>
      [b, c].every((n) => subscribed(a, n) && subscribed(n, a)),
    );
    const { recipients } = await a.services.pubsub.publish(TOPIC, bytes("hello"));
    for (const n of [b, c])
      assert.ok(
        recipients.some((p) => p.equals(n.peerId)),
        "sent to B, C",
      );
    await waitFor("B and C to receive", () => has(got.b, "hello") && has(got.c, "hello"));
    for (const msg of [got.b, got.c].map((msgs) =>
      msgs.find((m) => text.decode(m.data) === "hello"),
    )) {
      assert.ok(msg);
      // No envelope signature (StrictNoSign): who wrote a message is the message's own business.
      assert.equal(msg.type, "unsigned");
    }
  });

  it("a rejected message is not delivered and lowers the sender's score", async () => {
    const bId = b.peerId.toString();
    assert.ok(a.services.pubsub.getScore(bId) >= 0, "B starts with a non-negative score at A");
    await b.services.pubsub.publish(TOPIC, bytes(MARKER));
    await b.services.pubsub.publish(TOPIC, bytes("valid"));
    await waitFor("A to receive the valid message", () => has(got.a, "valid"));
    // The score is cached for one heartbeat (100 ms here).
    await waitFor(
      "B's score at A to drop below 0",
      () => a.services.pubsub.getScore(bId) < 0,
      3000,
    );
    for (const msgs of Object.values(got)) assert.ok(!has(msgs, MARKER), "marker never delivered");
  });

  it("C finds A as a provider of a run through the DHT", async () => {
    const runId = createHash("sha256").update("e2e run").digest("hex");
    const cid = runIdCid(runId);
    assert.equal(cid.code, 0x55, "raw codec");
    assert.equal(cid.multihash.code, 0x12, "sha2-256 multihash");
    assert.ok(cid.equals(runIdCid(runId)), "deterministic");
    // Retried for up to 10 s: right after the connections open, the DHT routing tables can still
    // be empty, and a provide then reaches nobody (a clean CI run found no provider in 162 ms).
    let found = false;
    let tries = 0;
    for (const until = Date.now() + 10_000; !found && Date.now() < until; tries++) {
      if (tries > 0) await new Promise((r) => setTimeout(r, 250));
      await a.contentRouting.provide(cid, { signal: AbortSignal.timeout(10_000) });
      for await (const p of c.contentRouting.findProviders(cid, { signal: AbortSignal.timeout(5_000) })) {
        if (p.id.equals(a.peerId)) {
          found = true;
          break;
        }
      }
    }
    assert.ok(found, `A among the providers (${tries} tries)`);
  });

  it("keeps the node identity across restarts and refuses a damaged key", async () => {
    const dir = await mkdtemp(join(tmpdir(), "seedswarm-identity-"));
    dirs.push(dir);
    const first = await loadOrCreateIdentity(dir);
    const second = await loadOrCreateIdentity(dir);
    assert.equal(first.created, true);
    assert.equal(second.created, false);
    assert.ok(first.peerId.equals(second.peerId), "same peer id");
    assert.equal(first.privateKey.type, "Ed25519");
    const path = identityPath(dir);
    assert.equal((await stat(path)).mode & 0o777, 0o600, "key file is private");

    await writeFile(path, "not a key");
    await assert.rejects(
      loadOrCreateIdentity(dir),
      (err: unknown) =>
        err instanceof IdentityError &&
        err.code === "IDENTITY_CORRUPT" &&
        err.message.includes(path),
    );
    assert.equal(await readFile(path, "utf8"), "not a key", "damaged key left in place");

    const dir2 = await mkdtemp(join(tmpdir(), "seedswarm-identity-"));
    dirs.push(dir2);
    await mkdir(identityPath(dir2));
    await assert.rejects(
      loadOrCreateIdentity(dir2),
      (err: unknown) => err instanceof IdentityError && err.code === "IDENTITY_UNREADABLE",
    );
  });
});
