/** Member runs: the RunSpec's `members` list (canonical, bounded) and the membership it defines. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey, peerIdFromString } from "@libp2p/peer-id";
import { base32 } from "multiformats/bases/base32";
import { MAX_COMMIT_ENTRIES, MAX_MEMBERS, MAX_SPEC_JSON_BYTES, OPEN_SEATS } from "../../../protocol/limits.js";
import { Membership } from "../../../protocol/membership.js";
import { PRESETS } from "../../../protocol/presets.js";
import { canonicalJson, parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { RunSpecError } from "../../../protocol/spec-fields.js";

const base = PRESETS["tiny-spsa"];

/** Asserts that parsing `v` fails on exactly `path`. */
function rejects(v: unknown, path: string): void {
  assert.throws(
    () => parseRunSpec(v),
    (err: unknown) => err instanceof RunSpecError && err.code === "RUNSPEC_INVALID" && err.context.path === path,
    `expected an error naming ${path}`,
  );
}

describe("RunSpec members", () => {
  let ids: string[];
  before(async () => {
    ids = await Promise.all(
      [0, 1, 2].map(async () => peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toString()),
    );
  });

  it("sorts and deduplicates, so one set of members is one runId; the list changes the runId", () => {
    const a = parseRunSpec({ ...base, members: [ids[2], ids[0], ids[1], ids[0]] });
    const b = parseRunSpec({ ...base, members: [ids[1], ids[2], ids[0]] });
    assert.deepEqual(a.members, [...ids].sort());
    assert.equal(runIdOf(a), runIdOf(b));
    const open = parseRunSpec(base);
    assert.equal(open.members, undefined);
    assert.notEqual(runIdOf(a), runIdOf(open));
    assert.notEqual(runIdOf(parseRunSpec({ ...base, members: [ids[0], ids[1]] })), runIdOf(a));
    // What a peer serves (canonical JSON) parses back to the same run.
    assert.equal(runIdOf(parseRunSpec(JSON.parse(canonicalJson(a)))), runIdOf(a));
  });

  it("refuses an empty list, a non-string, a non-peer id and a non-canonical spelling", () => {
    rejects({ ...base, members: [] }, "spec.members");
    rejects({ ...base, members: "abc" }, "spec.members");
    rejects({ ...base, members: [ids[0], 7] }, "spec.members[1]");
    rejects({ ...base, members: [ids[0], "12D3KooWnotapeerid"] }, "spec.members[1]");
    rejects({ ...base, members: [ids[0].toLowerCase()] }, "spec.members[0]");
    // The same key as a CIDv1 in base32 is a peer id, but not the form a signer's id takes.
    const cid = cidSpelling(ids[1]);
    rejects({ ...base, members: [cid] }, "spec.members[0]");
  });

  it(`bounds the list at ${MAX_MEMBERS}, and a full list fits the served spec limit`, async () => {
    const key = await generateKeyPair("Ed25519");
    const one = peerIdFromPrivateKey(key).toString();
    // Distinct ids are not needed to test the count bound: the count is checked before dedupe.
    rejects({ ...base, members: Array.from({ length: MAX_MEMBERS + 1 }, () => one) }, "spec.members");
    const many = await Promise.all(
      Array.from({ length: 64 }, async () => peerIdFromPrivateKey(await generateKeyPair("Ed25519")).toString()),
    );
    const perMember = (canonicalJson(parseRunSpec({ ...base, members: many })).length - canonicalJson(parseRunSpec(base)).length) / 64;
    assert.ok(canonicalJson(parseRunSpec(base)).length + perMember * MAX_MEMBERS < MAX_SPEC_JSON_BYTES);
  });

  it("Membership: an open run admits anyone, a member run its members only", () => {
    const open = Membership.of(parseRunSpec(base));
    assert.equal(open.open, true);
    assert.equal(open.admits(ids[0]), true);
    const m = Membership.of(parseRunSpec({ ...base, members: [ids[0], ids[1]] }));
    assert.deepEqual([m.open, m.size], [false, 2]);
    assert.deepEqual(ids.map((id) => m.admits(id)), [true, true, false]);
    assert.equal(Membership.OPEN.admits(ids[2]), true);
    assert.deepEqual([open.seats, m.seats], [OPEN_SEATS, MAX_COMMIT_ENTRIES], "an open run's commits hold its seats; a member run's, up to the wire's bound");
  });
});

/** The CIDv1 (libp2p-key, base32) spelling of a peer id string. */
function cidSpelling(id: string): string {
  return peerIdFromString(id).toCID().toString(base32);
}
