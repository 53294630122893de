import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppliedHistory } from "../../../node/chain/applied-history.js";
import { CommitChecks } from "../../../node/chain/commit-checks.js";
import { createLogger } from "../../../node/observe/logger.js";
import { PRESETS } from "../../../protocol/presets.js";
import { parseRunSpec, runIdOf } from "../../../protocol/run-spec.js";
import { signedContribution, testKeys } from "../../helpers/chain-keys.js";

const log = createLogger({ level: "silent" });
const runId = runIdOf(parseRunSpec(PRESETS["tiny-spsa"]));

describe("CommitChecks: exclusions inherited from behind a snapshot", () => {
  it("an inherited author is refused and left out of our proposals; the others are kept", async () => {
    const [a, b, out] = await testKeys(3);
    const checks = new CommitChecks(runId, new AppliedHistory(0, "00"), log, () => {});
    const usable = [a, b, out].map((k) => signedContribution(k, runId, 0, new Uint8Array(16).fill(1)).c);
    assert.equal(checks.proposal(0, usable).entries.length, 3, "before: every author's entry");
    checks.inherit([out.author.id]);
    assert.ok(checks.isExcluded(out.author.id));
    assert.ok(!checks.isExcluded(a.author.id));
    const { entries, exclusions } = checks.proposal(0, usable);
    assert.deepEqual(entries.map((e) => e.author.id).sort(), [a.author.id, b.author.id].sort());
    assert.equal(exclusions.length, 0, "inherited, not re-recorded: the chain behind holds it already");
  });
});
