import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  decodeCommit,
  encodeCommit,
  encodeContribution,
  encodeHeartbeat,
  encodeLeave,
} from "../../../protocol/codec.js";
import {
  decodeCommitsResponse,
  encodeChecksumResponse,
  encodeCommitsRequest,
  encodeCommitsResponse,
  encodeSnapshotRequest,
  encodeSnapshotResponse,
} from "../../../protocol/sync-codec.js";
import {
  MAX_COMMIT_ENTRIES,
  MAX_COMMITS_PER_RESPONSE,
  MAX_MESSAGE_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_PEER_ID_BYTES,
  MAX_SNAPSHOT_CHUNK_BYTES,
} from "../../../protocol/limits.js";

import { filled, RUN, throwsWire } from "./fixtures.js";

describe("limits cover the largest honest message", () => {
  const maxPeer = Uint8Array.of(0x00, MAX_PEER_ID_BYTES - 2, ...filled(MAX_PEER_ID_BYTES - 2, 1));
  const big = Number.MAX_SAFE_INTEGER;

  it("contribution", () => {
    const bytes = encodeContribution({
      runId: RUN,
      iteration: big,
      author: maxPeer,
      joinedAt: big,
      payload: filled(MAX_PAYLOAD_BYTES, 1),
      parentHash: filled(32, 1),
      signature: filled(64, 1),
    });
    assert.ok(bytes.length <= MAX_MESSAGE_BYTES.contribution);
  });

  it("commit with every entry at its limits", () => {
    const entries = Array.from({ length: MAX_COMMIT_ENTRIES }, (_, i) => ({
      author: Uint8Array.of(...maxPeer.subarray(0, 2), i & 0xff, i >> 8, ...maxPeer.subarray(4)),
      joinedAt: big,
      payload: filled(MAX_PAYLOAD_BYTES, 1),
      signature: filled(64, 1),
    }));
    const c = {
      runId: RUN,
      iteration: big,
      prevHash: filled(32, 1),
      entries,
      checksum: filled(32, 1),
      rank: 0xffffffff,
      proposer: maxPeer,
      signature: filled(64, 1),
    };
    const bytes = encodeCommit(c);
    assert.ok(bytes.length <= MAX_MESSAGE_BYTES.commit, `${bytes.length}`);
    assert.equal(decodeCommit(bytes).entries.length, MAX_COMMIT_ENTRIES);
    assert.equal(
      decodeCommitsResponse(encodeCommitsResponse({ commits: [bytes] })).commits.length,
      1,
    );
  });

  it("heartbeat, leave, snapshot and checksum responses", () => {
    assert.ok(
      encodeHeartbeat({ runId: RUN, iteration: big, checksum: filled(32, 1), joinedAt: big, author: maxPeer, signature: filled(64, 1) })
        .length <= MAX_MESSAGE_BYTES.heartbeat,
    );
    assert.ok(encodeLeave({ runId: RUN, iteration: big, author: maxPeer, signature: filled(64, 1) }).length <= MAX_MESSAGE_BYTES.leave);
    const snap = {
      iteration: big,
      checksum: filled(32, 1),
      totalChunks: 0xffffffff,
      data: filled(MAX_SNAPSHOT_CHUNK_BYTES, 1),
      chunkHash: filled(32, 1),
    };
    assert.ok(encodeSnapshotResponse(snap).length <= MAX_MESSAGE_BYTES.snapshotResponse);
    assert.ok(
      encodeChecksumResponse({ iteration: big, checksum: filled(32, 1), known: true }).length <=
        MAX_MESSAGE_BYTES.checksumResponse,
    );
  });

  it("encode refuses what peers would refuse", () => {
    throwsWire(
      () =>
        encodeContribution({
          runId: RUN,
          iteration: 1,
          author: maxPeer,
          joinedAt: 1,
          payload: filled(MAX_PAYLOAD_BYTES + 1, 1),
          parentHash: filled(32, 1),
          signature: filled(64, 1),
        }),
      "WIRE_BAD_FIELD",
    );
    throwsWire(() => encodeLeave({ runId: RUN, iteration: 1.5, author: maxPeer, signature: filled(64, 1) }), "WIRE_BAD_FIELD");
    throwsWire(() => encodeLeave({ runId: RUN, iteration: -1, author: maxPeer, signature: filled(64, 1) }), "WIRE_BAD_FIELD");
    throwsWire(() => encodeLeave({ runId: RUN, iteration: 2 ** 53, author: maxPeer, signature: filled(64, 1) }), "WIRE_BAD_FIELD");
    throwsWire(() => encodeLeave({ runId: "xyz", iteration: 1, author: maxPeer, signature: filled(64, 1) }), "WIRE_BAD_FIELD");
    throwsWire(
      () => encodeChecksumResponse({ iteration: 1, checksum: filled(32, 1), known: false }),
      "WIRE_BAD_FIELD",
    );
    throwsWire(
      () => encodeSnapshotRequest({ runId: RUN, chunk: 0, chunkSize: 0 }),
      "WIRE_BAD_FIELD",
    );
    throwsWire(
      () =>
        encodeCommitsRequest({ runId: RUN, fromIteration: 0, max: MAX_COMMITS_PER_RESPONSE + 1 }),
      "WIRE_BAD_FIELD",
    );
  });
});
