import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type CommitMessage,
  type CommitEntry,
  type ContributionMessage,
  commitBodyOf,
  commitHash,
  decodeCommit,
  decodeContribution,
  decodeHeartbeat,
  decodeProof,
  decodeLeave,
  encodeCommit,
  encodeCommitBody,
  encodeContribution,
  encodeHeartbeat,
  encodeProof,
  encodeLeave,
} from "../../../protocol/codec.js";
import { isPeerIdMultihash } from "../../../protocol/wire-fields.js";
import {
  decodeChecksumRequest,
  decodeChecksumResponse,
  decodeCommitsRequest,
  decodeCommitsResponse,
  decodeRunSpecRequest,
  decodeRunSpecResponse,
  decodeSnapshotRequest,
  decodeSnapshotResponse,
  encodeChecksumRequest,
  encodeChecksumResponse,
  encodeExpertRecord,
  decodeExpertRecord,
  encodeCommitsRequest,
  encodeCommitsResponse,
  encodeRunSpecRequest,
  encodeRunSpecResponse,
  encodeSnapshotRequest,
  encodeSnapshotResponse,
} from "../../../protocol/sync-codec.js";
import { runIdBytes, runIdHex } from "../../../protocol/run-id.js";
import { sha256 } from "../../../protocol/bytes.js";
import { WireError } from "../../../protocol/errors.js";
import {
  MAX_COMMIT_ENTRIES,
  MAX_COMMIT_EXCLUSIONS,
  MAX_COMMITS_PER_RESPONSE,
  MAX_MESSAGE_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_SNAPSHOT_CHUNK_BYTES,
  type MessageName,
} from "../../../protocol/limits.js";
import * as pb from "../../../protocol/messages.js";

import { filled, PEER_A, PEER_B, RUN, throwsWire } from "./fixtures.js";

describe("codec round trips", () => {
  const entry: CommitEntry = { author: PEER_A, joinedAt: 1_700_000_000_000, payload: filled(8, 3), signature: filled(64, 4) };
  const commit: CommitMessage = {
    runId: RUN,
    iteration: 42,
    prevHash: filled(32, 0),
    entries: [entry, { author: PEER_B, joinedAt: 1_700_000_000_001, payload: filled(8, 0xfd), signature: filled(64, 5) }],
    checksum: filled(32, 9),
    rank: 2,
    proposer: PEER_A,
    signature: filled(64, 6),
  };

  function roundTrip<T>(value: T, encode: (m: T) => Uint8Array, decode: (b: Uint8Array) => T) {
    return () => assert.deepEqual(decode(encode(value)), value);
  }

  // Typed over every message: a new message without a round trip does not compile.
  const cases: Record<MessageName, () => void> = {
    contribution: roundTrip(
      { runId: RUN, iteration: 7, author: PEER_A, joinedAt: 1_700_000_000_000, payload: filled(16, 0x7f), parentHash: filled(32, 2), signature: filled(64, 3) },
      encodeContribution,
      decodeContribution,
    ),
    commit: () => {
      roundTrip(commit, encodeCommit, decodeCommit)();
      roundTrip({ ...commit, exclusions: [{ author: PEER_B, iteration: 41 }, { author: PEER_A, iteration: 0 }] }, encodeCommit, decodeCommit)();
    },
    leave: roundTrip({ runId: RUN, iteration: 0, author: PEER_B, signature: filled(64, 6) }, encodeLeave, decodeLeave),
    heartbeat: roundTrip(
      { runId: RUN, iteration: Number.MAX_SAFE_INTEGER, checksum: filled(32, 5), joinedAt: 3, author: PEER_A, signature: filled(64, 7) },
      encodeHeartbeat,
      decodeHeartbeat,
    ),
    proof: roundTrip(
      { runId: RUN, iteration: 41, commitHash: filled(32, 8), accused: PEER_B, author: PEER_A, signature: filled(64, 2) },
      encodeProof,
      decodeProof,
    ),
    runSpecRequest: roundTrip({ runId: RUN }, encodeRunSpecRequest, decodeRunSpecRequest),
    runSpecResponse: roundTrip(
      { specJson: '{"name":"tiny","ü":"✓"}' },
      encodeRunSpecResponse,
      decodeRunSpecResponse,
    ),
    snapshotRequest: () => {
      roundTrip({ runId: RUN, chunk: 3, chunkSize: 262_144 }, encodeSnapshotRequest, decodeSnapshotRequest)();
      // An exact request for the snapshot at iteration 0 is not the same as "latest".
      roundTrip({ runId: RUN, chunk: 0, chunkSize: 1024, iteration: 0 }, encodeSnapshotRequest, decodeSnapshotRequest)();
    },
    snapshotResponse: roundTrip(
      {
        iteration: 10,
        checksum: filled(32, 1),
        totalChunks: 4,
        data: filled(1000, 7),
        chunkHash: sha256(filled(1000, 7)),
      },
      encodeSnapshotResponse,
      decodeSnapshotResponse,
    ),
    commitsRequest: roundTrip(
      { runId: RUN, fromIteration: 5, max: MAX_COMMITS_PER_RESPONSE },
      encodeCommitsRequest,
      decodeCommitsRequest,
    ),
    commitsResponse: roundTrip(
      { commits: [encodeCommit(commit), encodeCommit({ ...commit, entries: [] })] },
      encodeCommitsResponse,
      decodeCommitsResponse,
    ),
    checksumRequest: roundTrip(
      { runId: RUN, iteration: 9 },
      encodeChecksumRequest,
      decodeChecksumRequest,
    ),
    checksumResponse: roundTrip(
      { iteration: 9, checksum: filled(32, 4), known: true },
      encodeChecksumResponse,
      decodeChecksumResponse,
    ),
    expertRecord: roundTrip(
      {
        entries: [
          { suffix: 120, peer: PEER_A, timestamp: 1_700_000_000_000, expiresAt: 1_700_000_015_000, signature: filled(64, 5) },
          { suffix: 0xffffffff, peer: PEER_B, timestamp: 0, expiresAt: Number.MAX_SAFE_INTEGER, signature: filled(64, 6) },
        ],
      },
      encodeExpertRecord,
      decodeExpertRecord,
    ),
  };
  for (const [name, run] of Object.entries(cases)) it(name, run);

  it("an unknown checksum round-trips as empty", () => {
    const m = { iteration: 9, checksum: new Uint8Array(0), known: false };
    assert.deepEqual(decodeChecksumResponse(encodeChecksumResponse(m)), m);
  });

  it("decoded bytes are copies, not views of the input", () => {
    const bytes = encodeContribution({
      runId: RUN,
      iteration: 1,
      author: PEER_A,
      joinedAt: 1,
      payload: filled(4, 1),
      parentHash: filled(32, 0),
      signature: filled(64, 1),
    });
    const m = decodeContribution(bytes);
    bytes.fill(0);
    assert.deepEqual(m.payload, filled(4, 1));
  });

  it("commitHash is the SHA-256 of the encoded commit and changes with any field", () => {
    const a = encodeCommit(commit);
    assert.equal(commitHash(a).length, 32);
    assert.deepEqual(commitHash(a), commitHash(encodeCommit(decodeCommit(a))));
    assert.notDeepEqual(commitHash(a), commitHash(encodeCommit({ ...commit, rank: 0 })));
  });

  it("commitBodyOf is encodeCommitBody without encoding again, for 0, 2 and 1,024 entries; null once the signature field is touched", () => {
    const many = Array.from({ length: 1024 }, (_, i) => ({ ...entry, joinedAt: entry.joinedAt + i, payload: filled(16, i & 255) }));
    const exclusions = [{ author: PEER_B, iteration: 40 }];
    for (const [entries, excluding] of [[[], false], [commit.entries, false], [commit.entries, true], [many, false]] as const) {
      const m = { ...commit, entries, ...(excluding ? { exclusions } : {}) };
      const encoded = encodeCommit(m);
      const body = commitBodyOf(m, encoded);
      assert.ok(body, `${entries.length} entries`);
      assert.deepEqual(Uint8Array.from(body), encodeCommitBody(m));
      for (const at of [encoded.byteLength - 1, encoded.byteLength - 64, encoded.byteLength - 65, encoded.byteLength - 66]) {
        const touched = encoded.slice();
        touched[at] ^= 1;
        assert.equal(commitBodyOf(m, touched), null, `byte ${at} of ${encoded.byteLength}`);
      }
      assert.equal(commitBodyOf(m, encoded.subarray(0, 10)), null);
    }
  });

  it("runId hex <-> bytes", () => {
    const b = runIdBytes(RUN);
    assert.equal(b.length, 32);
    assert.equal(b[0], 0x01);
    assert.equal(runIdHex(b), RUN);
    throwsWire(() => runIdBytes(RUN.toUpperCase()), "WIRE_BAD_FIELD");
    throwsWire(() => runIdBytes(RUN.slice(2)), "WIRE_BAD_FIELD");
    throwsWire(() => runIdHex(new Uint8Array(31)), "WIRE_BAD_FIELD");
  });

  it("peer id multihashes", () => {
    assert.ok(isPeerIdMultihash(PEER_A));
    assert.ok(isPeerIdMultihash(PEER_B));
    assert.ok(isPeerIdMultihash(Uint8Array.of(0x00, 42, ...filled(42, 1))));
    assert.ok(!isPeerIdMultihash(Uint8Array.of(0x00, 43, ...filled(43, 1))), "over the limit");
    assert.ok(!isPeerIdMultihash(Uint8Array.of(0x12, 31, ...filled(31, 1))), "short sha2-256");
    assert.ok(!isPeerIdMultihash(Uint8Array.of(0x13, 32, ...filled(32, 1))), "other hash");
    assert.ok(!isPeerIdMultihash(Uint8Array.of(0x00, 5, 1, 2)), "length mismatch");
    assert.ok(!isPeerIdMultihash(Uint8Array.of(0x00, 0)), "empty identity");
  });
});

describe("decode guards", () => {
  const contribution: ContributionMessage = {
    runId: RUN,
    iteration: 3,
    author: PEER_A,
    joinedAt: 4,
    payload: filled(8, 1),
    parentHash: filled(32, 0),
    signature: filled(64, 1),
  };

  it("rejects an oversized buffer before parsing it", () => {
    // Garbage that the parser would call malformed: the size guard must answer first.
    const names = Object.keys(MAX_MESSAGE_BYTES) as MessageName[];
    const decoders: Record<MessageName, (b: Uint8Array) => unknown> = {
      contribution: decodeContribution,
      commit: decodeCommit,
      leave: decodeLeave,
      heartbeat: decodeHeartbeat,
      proof: decodeProof,
      runSpecRequest: decodeRunSpecRequest,
      runSpecResponse: decodeRunSpecResponse,
      snapshotRequest: decodeSnapshotRequest,
      snapshotResponse: decodeSnapshotResponse,
      commitsRequest: decodeCommitsRequest,
      commitsResponse: decodeCommitsResponse,
      checksumRequest: decodeChecksumRequest,
      checksumResponse: decodeChecksumResponse,
      expertRecord: decodeExpertRecord,
    };
    for (const name of names) {
      throwsWire(() => decoders[name](filled(MAX_MESSAGE_BYTES[name] + 1, 0xff)), "WIRE_TOO_LARGE");
    }
  });

  it("rejects a valid message padded past the limit", () => {
    const valid = encodeLeave({ runId: RUN, iteration: 1, author: PEER_A, signature: filled(64, 1) });
    // An unknown bytes field (number 15) would parse fine: only the guard stops it.
    const pad = MAX_MESSAGE_BYTES.leave;
    const padded = Uint8Array.of(...valid, (15 << 3) | 2, pad, ...filled(pad, 0));
    throwsWire(() => decodeLeave(padded), "WIRE_TOO_LARGE");
  });

  it("truncated and garbage bytes are WireErrors", () => {
    const bytes = encodeContribution(contribution);
    // Cut inside a field: the parser runs off the end.
    throwsWire(() => decodeContribution(bytes.subarray(0, bytes.length - 1)), "WIRE_MALFORMED");
    // Cut anywhere: a WireError, or (at a field boundary) a message that lacks the later fields.
    for (let n = 1; n < bytes.length; n++) {
      let decoded: ContributionMessage | undefined;
      try {
        decoded = decodeContribution(bytes.subarray(0, n));
      } catch (err) {
        assert.ok(err instanceof WireError, `prefix ${n}: ${String(err)}`);
      }
      if (decoded) assert.notDeepEqual(decoded, contribution, `prefix ${n}`);
    }
    throwsWire(() => decodeContribution(filled(20, 0xff)), "WIRE_MALFORMED");
    // Wire type 7 does not exist (protons only checks it on fields it skips).
    throwsWire(() => decodeContribution(Uint8Array.of((15 << 3) | 7, 0)), "WIRE_MALFORMED");
    assert.throws(() => decodeContribution(new Uint8Array(0)), WireError, "empty: no run id");
    const c = encodeCommit({
      runId: RUN,
      iteration: 1,
      prevHash: filled(32, 0),
      entries: [],
      checksum: filled(32, 1),
      rank: 0,
      proposer: PEER_A,
      signature: filled(64, 1),
    });
    for (let n = 0; n < c.length; n++)
      assert.throws(() => decodeCommit(c.subarray(0, n)), WireError);
  });

  it("bad field sizes are WIRE_BAD_FIELD", () => {
    const run = runIdBytes(RUN) as Uint8Array<ArrayBuffer>;
    const h = (n: number) => filled(n, 1) as Uint8Array<ArrayBuffer>;
    const commit = {
      runId: run,
      iteration: 1n,
      prevHash: h(32),
      entries: [],
      checksum: h(32),
      rank: 0,
      proposer: PEER_A as Uint8Array<ArrayBuffer>,
      signature: h(64),
    };
    const cases: Array<[string, () => unknown]> = [
      ["short run id", () => decodeLeave(pb.Leave.encode({ runId: h(31), iteration: 1n }))],
      ["missing run id", () => decodeLeave(pb.Leave.encode({ iteration: 1n }))],
      [
        "long checksum",
        () => decodeHeartbeat(pb.Heartbeat.encode({ runId: run, checksum: h(33) })),
      ],
      ["empty prev hash", () => decodeCommit(pb.Commit.encode({ ...commit, prevHash: h(0) }))],
      [
        "short commit checksum",
        () => decodeCommit(pb.Commit.encode({ ...commit, checksum: h(1) })),
      ],
      [
        "bad author",
        () =>
          decodeCommit(
            pb.Commit.encode({
              ...commit,
              entries: [{ author: h(34), joinedAt: 1n, payload: h(1), signature: h(64), staleness: 0 }],
            }),
          ),
      ],
      [
        "short entry signature",
        () =>
          decodeCommit(
            pb.Commit.encode({
              ...commit,
              entries: [{ author: PEER_A as Uint8Array<ArrayBuffer>, joinedAt: 1n, payload: h(1), signature: h(63), staleness: 0 }],
            }),
          ),
      ],
      ["missing commit signature", () => decodeCommit(pb.Commit.encode({ ...commit, signature: h(0) }))],
      ["bad proposer", () => decodeCommit(pb.Commit.encode({ ...commit, proposer: h(5) }))],
      [
        "short contribution parent",
        () => decodeContribution(pb.Contribution.encode({ runId: run, parentHash: h(31), signature: h(64) })),
      ],
      [
        "payload over the limit",
        () =>
          decodeContribution(
            pb.Contribution.encode({ runId: run, payload: h(MAX_PAYLOAD_BYTES + 1) }),
          ),
      ],
      [
        "chunk size 0",
        () => decodeSnapshotRequest(pb.SnapshotRequest.encode({ runId: run, chunk: 1 })),
      ],
      [
        "chunk size over the limit",
        () =>
          decodeSnapshotRequest(
            pb.SnapshotRequest.encode({ runId: run, chunkSize: MAX_SNAPSHOT_CHUNK_BYTES + 1 }),
          ),
      ],
      ["commits max 0", () => decodeCommitsRequest(pb.CommitsRequest.encode({ runId: run }))],
      [
        "bad chunk hash",
        () =>
          decodeSnapshotResponse(
            pb.SnapshotResponse.encode({ checksum: h(32), totalChunks: 1, chunkHash: h(2) }),
          ),
      ],
      [
        "zero total chunks",
        () =>
          decodeSnapshotResponse(pb.SnapshotResponse.encode({ checksum: h(32), chunkHash: h(32) })),
      ],
      [
        "known without checksum",
        () => decodeChecksumResponse(pb.ChecksumResponse.encode({ known: true })),
      ],
      [
        "unknown with checksum",
        () => decodeChecksumResponse(pb.ChecksumResponse.encode({ checksum: h(32) })),
      ],
    ];
    for (const [what, fn] of cases) {
      assert.throws(
        fn,
        (err: unknown) => err instanceof WireError && err.code === "WIRE_BAD_FIELD",
        what,
      );
    }
  });

  it("uint64 above Number.MAX_SAFE_INTEGER is rejected, the maximum accepted", () => {
    const run = runIdBytes(RUN) as Uint8Array<ArrayBuffer>;
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    assert.equal(
      decodeLeave(pb.Leave.encode({ runId: run, iteration: max, author: PEER_A as Uint8Array<ArrayBuffer>, signature: filled(64, 0) as Uint8Array<ArrayBuffer> })).iteration,
      Number.MAX_SAFE_INTEGER,
    );
    for (const v of [max + 1n, 2n ** 64n - 1n]) {
      throwsWire(
        () => decodeLeave(pb.Leave.encode({ runId: run, iteration: v, author: PEER_A as Uint8Array<ArrayBuffer>, signature: filled(64, 0) as Uint8Array<ArrayBuffer> })),
        "WIRE_BAD_FIELD",
      );
      throwsWire(
        () => decodeContribution(pb.Contribution.encode({ runId: run, joinedAt: v, parentHash: filled(32, 0) as Uint8Array<ArrayBuffer>, signature: filled(64, 0) as Uint8Array<ArrayBuffer> })),
        "WIRE_BAD_FIELD",
      );
      throwsWire(
        () =>
          decodeCommitsRequest(pb.CommitsRequest.encode({ runId: run, fromIteration: v, max: 1 })),
        "WIRE_BAD_FIELD",
      );
    }
  });

  it("repeated fields over their limit are WIRE_TOO_LARGE even inside the byte limit", () => {
    const run = runIdBytes(RUN) as Uint8Array<ArrayBuffer>;
    const entries = Array.from({ length: MAX_COMMIT_ENTRIES + 1 }, () => ({
      author: PEER_B as Uint8Array<ArrayBuffer>,
      joinedAt: 1n,
      payload: filled(1, 1) as Uint8Array<ArrayBuffer>,
      signature: filled(64, 1) as Uint8Array<ArrayBuffer>,
      staleness: 0,
    }));
    const commit = pb.Commit.encode({
      runId: run,
      prevHash: filled(32, 0) as Uint8Array<ArrayBuffer>,
      entries,
    });
    assert.ok(commit.length <= MAX_MESSAGE_BYTES.commit);
    throwsWire(() => decodeCommit(commit), "WIRE_TOO_LARGE");
    const excluding = pb.Commit.encode({
      runId: run,
      prevHash: filled(32, 0) as Uint8Array<ArrayBuffer>,
      entries: [],
      exclusions: Array.from({ length: MAX_COMMIT_EXCLUSIONS + 1 }, () => ({ author: PEER_B as Uint8Array<ArrayBuffer>, iteration: 1n })),
    });
    throwsWire(() => decodeCommit(excluding), "WIRE_TOO_LARGE");
    const many = pb.CommitsResponse.encode({
      commits: Array.from(
        { length: MAX_COMMITS_PER_RESPONSE + 1 },
        () => filled(1, 1) as Uint8Array<ArrayBuffer>,
      ),
    });
    throwsWire(() => decodeCommitsResponse(many), "WIRE_TOO_LARGE");
  });
});
