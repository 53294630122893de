/**
 * Names on the wire: gossip topics (run-scoped, so a node never mixes runs), request/response
 * protocol ids and the private DHT prefix.
 */
import { isRunId } from "./run-id.js";
import { WireError } from "./errors.js";
/** Every gossip topic kind of a run. */
export const TOPIC_KINDS = ["contribution", "commit", "leave", "heartbeat"];
/** Root of every name we put on the wire. */
export const PROTOCOL_PREFIX = "/seedswarm";
/** Version of the topic layout; bump it with an incompatible gossip schema. */
export const TOPIC_VERSION = "1";
/** The topic string of a run and kind; throws WireError on a malformed runId. */
export function stringifyTopic(topic) {
    if (!isRunId(topic.runId)) {
        throw new WireError("WIRE_BAD_FIELD", "topic: runId must be 64 lowercase hex", {
            field: "runId",
            value: topic.runId,
        });
    }
    return `${PROTOCOL_PREFIX}/${TOPIC_VERSION}/${topic.runId}/${topic.kind}`;
}
/** Parses a topic string; null for anything that is not exactly one of ours. */
export function parseTopic(s) {
    const parts = s.split("/");
    if (parts.length !== 5 || parts[0] !== "" || `/${parts[1]}` !== PROTOCOL_PREFIX)
        return null;
    if (parts[2] !== TOPIC_VERSION || !isRunId(parts[3]))
        return null;
    const kind = TOPIC_KINDS.find((k) => k === parts[4]);
    return kind === undefined ? null : { runId: parts[3], kind };
}
/** Every request/response protocol. */
export const PROTOCOL_NAMES = ["runspec", "snapshot", "commits", "checksum"];
/** `/seedswarm/<name>/<version>`. */
export function protocolId(name, version = "1.0.0") {
    return `${PROTOCOL_PREFIX}/${name}/${version}`;
}
/** The current id of every request/response protocol. */
export const PROTOCOLS = {
    runspec: protocolId("runspec"),
    snapshot: protocolId("snapshot"),
    commits: protocolId("commits"),
    checksum: protocolId("checksum"),
};
/** Prefix of our private DHT: it speaks `${DHT_PROTOCOL_PREFIX}/kad/1.0.0`, apart from IPFS. */
export const DHT_PROTOCOL_PREFIX = PROTOCOL_PREFIX;
/** kad-dht 16 takes the whole id as its `protocol` option (default `/ipfs/kad/1.0.0`). */
export const DHT_PROTOCOL = `${DHT_PROTOCOL_PREFIX}/kad/1.0.0`;
//# sourceMappingURL=topics.js.map