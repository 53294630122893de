import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DHT_PROTOCOL,
  PROTOCOLS,
  parseTopic,
  protocolId,
  stringifyTopic,
  TOPIC_KINDS,
} from "../../../protocol/topics.js";

import { RUN, throwsWire } from "./fixtures.js";

describe("topics and protocol ids", () => {
  it("round-trips every kind", () => {
    for (const kind of TOPIC_KINDS) {
      const s = stringifyTopic({ runId: RUN, kind });
      assert.equal(s, `/seedswarm/2/${RUN}/${kind}`);
      assert.deepEqual(parseTopic(s), { runId: RUN, kind });
    }
  });

  it("parses nothing malformed", () => {
    const bad = [
      "",
      "/",
      "/seedswarm",
      `/seedswarm/2/${RUN}`,
      `/seedswarm/2/${RUN}/`,
      `/seedswarm/2/${RUN}/commit/`,
      `/seedswarm/2/${RUN}/commit/x`,
      `seedswarm/2/${RUN}/commit`,
      `//seedswarm/2/${RUN}/commit`,
      `/seedswarm/1/${RUN}/commit`, // the layout before StrictNoSign
      `/seedswarm/3/${RUN}/commit`,
      `/other/1/${RUN}/commit`,
      `/seedswarm/2/${RUN.toUpperCase()}/commit`,
      `/seedswarm/2/${RUN.slice(1)}/commit`,
      `/seedswarm/2/${RUN}0/commit`,
      `/seedswarm/2/${"g".repeat(64)}/commit`,
      `/seedswarm/2/${RUN}/Commit`,
      `/seedswarm/2/${RUN}/votes`,
      `/seedswarm/2/${RUN}/constructor`,
      `/seedswarm/2/${RUN}/__proto__`,
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
