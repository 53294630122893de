import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DHT_PROTOCOL, PROTOCOLS, parseTopic, protocolId, stringifyTopic, TOPIC_KINDS, } from "../../../protocol/topics.js";
import { RUN, throwsWire } from "./fixtures.js";
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
        for (const s of bad)
            assert.equal(parseTopic(s), null, s);
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
//# sourceMappingURL=topics.test.js.map