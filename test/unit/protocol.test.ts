import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Commit,
  type CommitEntry,
  type Contribution,
  commitHash,
  decodeChecksumRequest,
  decodeChecksumResponse,
  decodeCommit,
  decodeCommitsRequest,
  decodeCommitsResponse,
  decodeContribution,
  decodeHeartbeat,
  decodeLeave,
  decodeRunSpecRequest,
  decodeRunSpecResponse,
  decodeSnapshotRequest,
  decodeSnapshotResponse,
  encodeChecksumRequest,
  encodeChecksumResponse,
  encodeExpertRecord,
  decodeExpertRecord,
  encodeCommit,
  encodeCommitsRequest,
  encodeCommitsResponse,
  encodeContribution,
  encodeHeartbeat,
  encodeLeave,
  encodeRunSpecRequest,
  encodeRunSpecResponse,
  encodeSnapshotRequest,
  encodeSnapshotResponse,
  isPeerIdMultihash,
  runIdBytes,
  runIdHex,
  sha256,
  WireError,
  type WireErrorCode,
} from "../../protocol/codec.js";
import {
  MAX_COMMIT_ENTRIES,
  MAX_COMMITS_PER_RESPONSE,
  MAX_MESSAGE_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_PEER_ID_BYTES,
  MAX_SNAPSHOT_CHUNK_BYTES,
  type MessageName,
} from "../../protocol/limits.js";
import { gradientPayloadProblem } from "../../protocol/gradient-byte.js";
import * as pb from "../../protocol/messages.js";
import {
  DHT_PROTOCOL,
  PROTOCOLS,
  parseTopic,
  protocolId,
  stringifyTopic,
  TOPIC_KINDS,
} from "../../protocol/topics.js";
import {
  GOSSIP_VALIDATORS,
  type GossipContext,
  type GossipErrorCode,
  GossipValidationError,
  toVerdict,
  type Validated,
  validateCommit,
  validateContribution,
  validateHeartbeat,
  validateLeave,
} from "../../protocol/validation.js";

const RUN = "0123456789abcdef".repeat(4);
const OTHER_RUN = "f".repeat(64);

function filled(n: number, v: number): Uint8Array {
  return new Uint8Array(n).fill(v);
}

/** An Ed25519-style identity peer id (36 bytes of key) and a sha2-256 one. */
const PEER_A = Uint8Array.of(0x00, 36, ...filled(36, 1));
const PEER_B = Uint8Array.of(0x12, 32, ...filled(32, 2));

function throwsWire(fn: () => unknown, code: WireErrorCode): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof WireError, `expected WireError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

describe("codec round trips", () => {
  const entry: CommitEntry = { author: PEER_A, joinedAt: 1_700_000_000_000, payload: filled(8, 3) };
  const commit: Commit = {
    runId: RUN,
    iteration: 42,
    prevHash: filled(32, 0),
    entries: [entry, { author: PEER_B, joinedAt: 1_700_000_000_001, payload: filled(8, 0xfd) }],
    checksum: filled(32, 9),
    rank: 2,
  };

  function roundTrip<T>(value: T, encode: (m: T) => Uint8Array, decode: (b: Uint8Array) => T) {
    return () => assert.deepEqual(decode(encode(value)), value);
  }

  // Typed over every message: a new message without a round trip does not compile.
  const cases: Record<MessageName, () => void> = {
    contribution: roundTrip(
      { runId: RUN, iteration: 7, joinedAt: 1_700_000_000_000, payload: filled(16, 0x7f) },
      encodeContribution,
      decodeContribution,
    ),
    commit: roundTrip(commit, encodeCommit, decodeCommit),
    leave: roundTrip({ runId: RUN, iteration: 0 }, encodeLeave, decodeLeave),
    heartbeat: roundTrip(
      { runId: RUN, iteration: Number.MAX_SAFE_INTEGER, checksum: filled(32, 5), joinedAt: 3 },
      encodeHeartbeat,
      decodeHeartbeat,
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
          { suffix: 120, peer: PEER_A, timestamp: 1_700_000_000_000, expiresAt: 1_700_000_015_000 },
          { suffix: 0xffffffff, peer: PEER_B, timestamp: 0, expiresAt: Number.MAX_SAFE_INTEGER },
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
      joinedAt: 1,
      payload: filled(4, 1),
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

describe("limits cover the largest honest message", () => {
  const maxPeer = Uint8Array.of(0x00, MAX_PEER_ID_BYTES - 2, ...filled(MAX_PEER_ID_BYTES - 2, 1));
  const big = Number.MAX_SAFE_INTEGER;

  it("contribution", () => {
    const bytes = encodeContribution({
      runId: RUN,
      iteration: big,
      joinedAt: big,
      payload: filled(MAX_PAYLOAD_BYTES, 1),
    });
    assert.ok(bytes.length <= MAX_MESSAGE_BYTES.contribution);
  });

  it("commit with every entry at its limits", () => {
    const entries = Array.from({ length: MAX_COMMIT_ENTRIES }, (_, i) => ({
      author: Uint8Array.of(...maxPeer.subarray(0, 2), i & 0xff, i >> 8, ...maxPeer.subarray(4)),
      joinedAt: big,
      payload: filled(MAX_PAYLOAD_BYTES, 1),
    }));
    const c = {
      runId: RUN,
      iteration: big,
      prevHash: filled(32, 1),
      entries,
      checksum: filled(32, 1),
      rank: 0xffffffff,
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
      encodeHeartbeat({ runId: RUN, iteration: big, checksum: filled(32, 1), joinedAt: big })
        .length <= MAX_MESSAGE_BYTES.heartbeat,
    );
    assert.ok(encodeLeave({ runId: RUN, iteration: big }).length <= MAX_MESSAGE_BYTES.leave);
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
          joinedAt: 1,
          payload: filled(MAX_PAYLOAD_BYTES + 1, 1),
        }),
      "WIRE_BAD_FIELD",
    );
    throwsWire(() => encodeLeave({ runId: RUN, iteration: 1.5 }), "WIRE_BAD_FIELD");
    throwsWire(() => encodeLeave({ runId: RUN, iteration: -1 }), "WIRE_BAD_FIELD");
    throwsWire(() => encodeLeave({ runId: RUN, iteration: 2 ** 53 }), "WIRE_BAD_FIELD");
    throwsWire(() => encodeLeave({ runId: "xyz", iteration: 1 }), "WIRE_BAD_FIELD");
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

describe("decode guards", () => {
  const contribution: Contribution = {
    runId: RUN,
    iteration: 3,
    joinedAt: 4,
    payload: filled(8, 1),
  };

  it("rejects an oversized buffer before parsing it", () => {
    // Garbage that the parser would call malformed: the size guard must answer first.
    const names = Object.keys(MAX_MESSAGE_BYTES) as MessageName[];
    const decoders: Record<MessageName, (b: Uint8Array) => unknown> = {
      contribution: decodeContribution,
      commit: decodeCommit,
      leave: decodeLeave,
      heartbeat: decodeHeartbeat,
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
    const valid = encodeLeave({ runId: RUN, iteration: 1 });
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
      let decoded: Contribution | undefined;
      try {
        decoded = decodeContribution(bytes.subarray(0, n));
      } catch (err) {
        assert.ok(err instanceof WireError, `prefix ${n}: ${String(err)}`);
      }
      if (decoded) assert.notDeepEqual(decoded, contribution, `prefix ${n}`);
    }
    throwsWire(() => decodeContribution(filled(20, 0xff)), "WIRE_MALFORMED");
    // Wire type 7 does not exist (protons only checks it on fields it skips).
    throwsWire(() => decodeContribution(Uint8Array.of((5 << 3) | 7, 0)), "WIRE_MALFORMED");
    assert.throws(() => decodeContribution(new Uint8Array(0)), WireError, "empty: no run id");
    const c = encodeCommit({
      runId: RUN,
      iteration: 1,
      prevHash: filled(32, 0),
      entries: [],
      checksum: filled(32, 1),
      rank: 0,
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
              entries: [{ author: h(34), joinedAt: 1n, payload: h(1) }],
            }),
          ),
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
      decodeLeave(pb.Leave.encode({ runId: run, iteration: max })).iteration,
      Number.MAX_SAFE_INTEGER,
    );
    for (const v of [max + 1n, 2n ** 64n - 1n]) {
      throwsWire(
        () => decodeLeave(pb.Leave.encode({ runId: run, iteration: v })),
        "WIRE_BAD_FIELD",
      );
      throwsWire(
        () => decodeContribution(pb.Contribution.encode({ runId: run, joinedAt: v })),
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
    }));
    const commit = pb.Commit.encode({
      runId: run,
      prevHash: filled(32, 0) as Uint8Array<ArrayBuffer>,
      entries,
    });
    assert.ok(commit.length <= MAX_MESSAGE_BYTES.commit);
    throwsWire(() => decodeCommit(commit), "WIRE_TOO_LARGE");
    const many = pb.CommitsResponse.encode({
      commits: Array.from(
        { length: MAX_COMMITS_PER_RESPONSE + 1 },
        () => filled(1, 1) as Uint8Array<ArrayBuffer>,
      ),
    });
    throwsWire(() => decodeCommitsResponse(many), "WIRE_TOO_LARGE");
  });
});

describe("topics and protocol ids", () => {
  it("round-trips every kind", () => {
    for (const kind of TOPIC_KINDS) {
      const s = stringifyTopic({ runId: RUN, kind });
      assert.equal(s, `/seedswarm/1/${RUN}/${kind}`);
      assert.deepEqual(parseTopic(s), { runId: RUN, kind });
    }
  });

  it("parses nothing malformed", () => {
    const bad = [
      "",
      "/",
      "/seedswarm",
      `/seedswarm/1/${RUN}`,
      `/seedswarm/1/${RUN}/`,
      `/seedswarm/1/${RUN}/commit/`,
      `/seedswarm/1/${RUN}/commit/x`,
      `seedswarm/1/${RUN}/commit`,
      `//seedswarm/1/${RUN}/commit`,
      `/seedswarm/2/${RUN}/commit`,
      `/other/1/${RUN}/commit`,
      `/seedswarm/1/${RUN.toUpperCase()}/commit`,
      `/seedswarm/1/${RUN.slice(1)}/commit`,
      `/seedswarm/1/${RUN}0/commit`,
      `/seedswarm/1/${"g".repeat(64)}/commit`,
      `/seedswarm/1/${RUN}/Commit`,
      `/seedswarm/1/${RUN}/votes`,
      `/seedswarm/1/${RUN}/constructor`,
      `/seedswarm/1/${RUN}/__proto__`,
    ];
    for (const s of bad) assert.equal(parseTopic(s), null, s);
  });

  it("stringify refuses a malformed runId", () => {
    throwsWire(() => stringifyTopic({ runId: "abc", kind: "commit" }), "WIRE_BAD_FIELD");
  });

  it("protocol ids", () => {
    assert.deepEqual(PROTOCOLS, {
      runspec: "/seedswarm/runspec/1.0.0",
      snapshot: "/seedswarm/snapshot/1.0.0",
      commits: "/seedswarm/commits/1.0.0",
      checksum: "/seedswarm/checksum/1.0.0",
    });
    assert.equal(protocolId("snapshot", "2.0.0"), "/seedswarm/snapshot/2.0.0");
    assert.equal(DHT_PROTOCOL, "/seedswarm/kad/1.0.0");
  });
});

describe("gossip validation", () => {
  const HEAD = 10;
  const SIZE = 4;
  const AUTHOR = "12D3KooWAuthor";

  /** A context whose dedupe store is a real map, so "same" and "different" come from data. */
  function context(over: Partial<GossipContext> = {}): GossipContext {
    const store = new Map<string, string>();
    return {
      runId: RUN,
      head: HEAD,
      window: 2,
      maxPayloadBytes: SIZE,
      payloadProblem: (p) => gradientPayloadProblem(p, SIZE),
      seen: (kind, author, iteration, data) => {
        const key = `${kind}/${author}/${iteration}`;
        const hex = Buffer.from(data).toString("hex");
        const prev = store.get(key);
        if (prev === undefined) {
          store.set(key, hex);
          return "new";
        }
        return prev === hex ? "same" : "different";
      },
      ...over,
    };
  }

  const contribution = (over: Partial<Contribution> = {}) =>
    encodeContribution({
      runId: RUN,
      iteration: HEAD,
      joinedAt: 1000,
      payload: Uint8Array.of(1, 0xff, 0, 127),
      ...over,
    });

  const commit = (over: Partial<Commit> = {}) =>
    encodeCommit({
      runId: RUN,
      iteration: HEAD,
      prevHash: filled(32, 0),
      entries: [
        { author: PEER_A, joinedAt: 1000, payload: filled(SIZE, 1) },
        { author: PEER_B, joinedAt: 1001, payload: filled(SIZE, 2) },
      ],
      checksum: filled(32, 3),
      rank: 0,
      ...over,
    });

  /** Validates `first` (which must be accepted) then `data`, in one context. */
  function twice(first: Uint8Array, data: Uint8Array, kind: "contribution" | "commit") {
    const ctx = context();
    const validate = kind === "contribution" ? validateContribution : validateCommit;
    assert.equal(toVerdict(() => validate(first, AUTHOR, ctx)).verdict, "accept");
    return toVerdict(() => validate(data, AUTHOR, ctx));
  }

  // Typed over every code: a new code without a case does not compile.
  const cases: Record<
    GossipErrorCode,
    Array<{ verdict: "ignore" | "reject"; run: () => Validated<unknown> }>
  > = {
    WRONG_RUN: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ runId: OTHER_RUN }), AUTHOR, context()),
          ),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateCommit(commit({ runId: OTHER_RUN }), AUTHOR, context())),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateLeave(encodeLeave({ runId: OTHER_RUN, iteration: 1 }), AUTHOR, context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateHeartbeat(
              encodeHeartbeat({
                runId: OTHER_RUN,
                iteration: 1,
                checksum: filled(32, 1),
                joinedAt: 1,
              }),
              AUTHOR,
              context(),
            ),
          ),
      },
    ],
    MALFORMED: [
      {
        verdict: "reject",
        run: () => toVerdict(() => validateContribution(filled(10, 0xff), AUTHOR, context())),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateCommit(contribution(), AUTHOR, context())),
      },
      {
        verdict: "reject",
        run: () => toVerdict(() => validateHeartbeat(new Uint8Array(0), AUTHOR, context())),
      },
    ],
    TOO_LARGE: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(filled(MAX_MESSAGE_BYTES.contribution + 1, 0), AUTHOR, context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() => validateLeave(filled(MAX_MESSAGE_BYTES.leave + 1, 0), AUTHOR, context())),
      },
    ],
    OLD_ITERATION: [
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ iteration: HEAD - 1 }), AUTHOR, context()),
          ),
      },
      {
        verdict: "ignore",
        run: () => toVerdict(() => validateCommit(commit({ iteration: 0 }), AUTHOR, context())),
      },
    ],
    FUTURE_ITERATION: [
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ iteration: HEAD + 3 }), AUTHOR, context()),
          ),
      },
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() => validateCommit(commit({ iteration: HEAD + 3 }), AUTHOR, context())),
      },
      {
        verdict: "ignore",
        run: () =>
          toVerdict(() =>
            validateLeave(encodeLeave({ runId: RUN, iteration: HEAD + 3 }), AUTHOR, context()),
          ),
      },
    ],
    BAD_PAYLOAD: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ payload: filled(SIZE - 1, 1) }), AUTHOR, context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(contribution({ payload: filled(SIZE + 1, 1) }), AUTHOR, context()),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateContribution(
              contribution({ payload: Uint8Array.of(1, 2, 0x80, 4) }),
              AUTHOR,
              context(),
            ),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              commit({
                entries: [{ author: PEER_A, joinedAt: 1, payload: Uint8Array.of(0x80, 0, 0, 0) }],
              }),
              AUTHOR,
              context(),
            ),
          ),
      },
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              commit({ entries: [{ author: PEER_A, joinedAt: 1, payload: filled(1, 1) }] }),
              AUTHOR,
              context(),
            ),
          ),
      },
    ],
    DUPLICATE: [
      { verdict: "ignore", run: () => twice(contribution(), contribution(), "contribution") },
      { verdict: "ignore", run: () => twice(commit(), commit(), "commit") },
    ],
    EQUIVOCATION: [
      {
        verdict: "reject",
        run: () =>
          twice(contribution(), contribution({ payload: filled(SIZE, 9) }), "contribution"),
      },
      {
        verdict: "reject",
        run: () => twice(contribution(), contribution({ joinedAt: 999 }), "contribution"),
      },
      { verdict: "reject", run: () => twice(commit(), commit({ rank: 1 }), "commit") },
    ],
    DUPLICATE_AUTHOR: [
      {
        verdict: "reject",
        run: () =>
          toVerdict(() =>
            validateCommit(
              commit({
                entries: [
                  { author: PEER_A, joinedAt: 1, payload: filled(SIZE, 1) },
                  { author: PEER_A, joinedAt: 2, payload: filled(SIZE, 2) },
                ],
              }),
              AUTHOR,
              context(),
            ),
          ),
      },
    ],
  };

  for (const [code, list] of Object.entries(cases)) {
    it(`${code} -> ${list[0].verdict}`, () => {
      for (const [i, { verdict, run }] of list.entries()) {
        const r = run();
        if (r.verdict === "accept") assert.fail(`case ${i} accepted`);
        assert.equal(r.verdict, verdict, `case ${i}`);
        assert.equal(r.code, code, `case ${i}: ${r.error.message}`);
        assert.ok(r.error instanceof GossipValidationError);
      }
    });
  }

  it("accepts what an honest node sends", () => {
    const ctx = context();
    const c = toVerdict(() => validateContribution(contribution(), AUTHOR, ctx));
    assert.equal(c.verdict, "accept");
    assert.equal(c.verdict === "accept" && c.value.iteration, HEAD);
    // Up to the edge of the window, from another author, and a commit with no entries.
    assert.equal(
      toVerdict(() => validateContribution(contribution({ iteration: HEAD + 2 }), AUTHOR, ctx))
        .verdict,
      "accept",
    );
    assert.equal(
      toVerdict(() => validateContribution(contribution(), "12D3KooWOther", ctx)).verdict,
      "accept",
    );
    // The same author's commit is a different kind from its contribution: not equivocation.
    assert.equal(toVerdict(() => validateCommit(commit(), AUTHOR, ctx)).verdict, "accept");
    assert.equal(
      toVerdict(() => validateCommit(commit({ entries: [], iteration: HEAD + 1 }), AUTHOR, ctx))
        .verdict,
      "accept",
    );
    // A lagging node leaving, a heartbeat far ahead (we may be the one behind).
    assert.equal(
      toVerdict(() => validateLeave(encodeLeave({ runId: RUN, iteration: 0 }), AUTHOR, ctx))
        .verdict,
      "accept",
    );
    const hb = encodeHeartbeat({
      runId: RUN,
      iteration: HEAD + 1_000_000,
      checksum: filled(32, 1),
      joinedAt: 5,
    });
    assert.equal(toVerdict(() => validateHeartbeat(hb, AUTHOR, ctx)).verdict, "accept");
  });

  it("dedupe runs last: a message that fails another check is never recorded", () => {
    let calls = 0;
    const ctx = context({
      seen: () => {
        calls++;
        return "new";
      },
    });
    toVerdict(() => validateContribution(contribution({ iteration: HEAD - 1 }), AUTHOR, ctx));
    toVerdict(() =>
      validateContribution(contribution({ payload: filled(SIZE, 0x80) }), AUTHOR, ctx),
    );
    toVerdict(() => validateContribution(contribution({ runId: OTHER_RUN }), AUTHOR, ctx));
    assert.equal(calls, 0);
    toVerdict(() => validateContribution(contribution(), AUTHOR, ctx));
    assert.equal(calls, 1);
  });

  it("GOSSIP_VALIDATORS covers every topic kind", () => {
    assert.deepEqual(Object.keys(GOSSIP_VALIDATORS).sort(), [...TOPIC_KINDS].sort());
  });

  it("toVerdict: a WireError thrown directly is a reject, a bug is an INTERNAL ignore", () => {
    const wire = toVerdict(() => decodeLeave(filled(MAX_MESSAGE_BYTES.leave + 1, 0)));
    assert.deepEqual(
      [wire.verdict, wire.verdict !== "accept" && wire.code],
      ["reject", "TOO_LARGE"],
    );
    const bug = toVerdict(() => {
      throw new TypeError("oops");
    });
    assert.deepEqual([bug.verdict, bug.verdict !== "accept" && bug.code], ["ignore", "INTERNAL"]);
  });
});
