// The polyfill must be evaluated before any libp2p module (Node 20).
import "../../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { PENALTY, Penalties } from "../../../node/chain/penalties.js";
import { APP_SPECIFIC_WEIGHT, createSwarmNode } from "../../../node/network/libp2p.js";
import { defaultNetworkOptions, type NetworkOptions } from "../../../node/network/network-options.js";
import { createLogger } from "../../../node/ground/index.js";

const log = createLogger({ level: "silent" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TOPIC = "/seedswarm/1/" + "ab".repeat(32) + "/commit";
const opts: NetworkOptions = {
  ...defaultNetworkOptions,
  listen: ["/ip4/127.0.0.1/tcp/0"],
  mdns: false,
  bootstrap: [],
  scoredTopics: [TOPIC],
  gossipHeartbeatMs: 100,
};

describe("penalties in gossipsub's peer score (P5)", () => {
  it("a penalised real peer's score goes below zero, past the graylist threshold after a usurp", async () => {
    const penalties = new Penalties();
    const honest = await createSwarmNode({ ...opts, appSpecificScore: penalties.appSpecificScore }, await generateKeyPair("Ed25519"), log);
    const other = await createSwarmNode(opts, await generateKeyPair("Ed25519"), log);
    try {
      honest.services.pubsub.subscribe(TOPIC);
      other.services.pubsub.subscribe(TOPIC);
      await other.dial(honest.getMultiaddrs()[0], { signal: AbortSignal.timeout(5000) });
      const peer = other.peerId.toString();
      for (let i = 0; i < 50 && !honest.services.pubsub.getSubscribers(TOPIC).some((p) => p.toString() === peer); i++) await sleep(50);
      // Uncharged: the score is not negative (time in mesh may make it slightly positive).
      await sleep(300);
      assert.ok(honest.services.pubsub.getScore(peer) >= 0, `score before: ${honest.services.pubsub.getScore(peer)}`);
      penalties.charge(peer, PENALTY.usurp);
      // The score is cached for one heartbeat (100 ms here).
      let score = 0;
      for (let i = 0; i < 40 && score > -PENALTY.usurp; i++) {
        await sleep(50);
        score = honest.services.pubsub.getScore(peer);
      }
      assert.ok(score < 0, `score after a charge: ${score}`);
      // Weighted: one usurp (-50 x 2) sinks below the graylist threshold (-80) whatever the positive record (<= +10).
      assert.ok(score <= -PENALTY.usurp * APP_SPECIFIC_WEIGHT + 10, `score ${score}`);
      assert.ok(score < -80, `graylisted: ${score}`);
      // An uncharged node's view of the same peer stays non-negative: the penalty is the app's, not gossipsub's.
      assert.ok(other.services.pubsub.getScore(honest.peerId.toString()) >= 0);
    } finally {
      await Promise.all([honest.stop(), other.stop()]);
    }
  });

  it("a crowd of fresh identities charged once each cannot flush a real peer charged three times (finding 14)", async () => {
    const penalties = new Penalties();
    const honest = await createSwarmNode({ ...opts, appSpecificScore: penalties.appSpecificScore }, await generateKeyPair("Ed25519"), log);
    const hostile = await createSwarmNode(opts, await generateKeyPair("Ed25519"), log);
    try {
      honest.services.pubsub.subscribe(TOPIC);
      hostile.services.pubsub.subscribe(TOPIC);
      await hostile.dial(honest.getMultiaddrs()[0], { signal: AbortSignal.timeout(5000) });
      const peer = hostile.peerId.toString();
      for (let i = 0; i < 3; i++) penalties.charge(peer, PENALTY.usurp);
      // 25,000 usurping commits from fresh keys (one signature each): more than the table holds.
      for (let i = 0; i < 25_000; i++) penalties.charge(`fresh-${i}`, PENALTY.usurp);
      assert.equal(penalties.score(peer), -3 * PENALTY.usurp, "the real peer's charges are remembered");
      assert.ok(penalties.shunned(peer));
      assert.ok(penalties.size <= 12_500, `${penalties.size} peers remembered`);
      let score = 0;
      for (let i = 0; i < 40 && score > -80; i++) {
        await sleep(50);
        score = honest.services.pubsub.getScore(peer);
      }
      assert.ok(score < -80, `still graylisted after the crowd: ${score}`);
      // Within one score the least recently charged go first: the newest fresh keys stay.
      assert.equal(penalties.score("fresh-24999"), -PENALTY.usurp);
      assert.equal(penalties.score("fresh-0"), 0);
    } finally {
      await Promise.all([honest.stop(), hostile.stop()]);
    }
  });
});
