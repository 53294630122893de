/**
 * Names on the wire: gossip topics (run-scoped, so a node never mixes runs), request/response
 * protocol ids and the private DHT prefix.
 */
import { isRunId } from "./run-id.js";
import { WireError } from "./errors.js";

/** Every gossip topic kind of a run. */
export const TOPIC_KINDS = ["contribution", "commit", "leave", "heartbeat", "proof"] as const;
export type TopicKind = (typeof TOPIC_KINDS)[number];

/** A gossip topic as data: `/seedswarm/2/<runId>/<kind>`. */
export interface Topic {
  readonly runId: string;
  readonly kind: TopicKind;
}

/** Root of every name we put on the wire. */
export const PROTOCOL_PREFIX = "/seedswarm";
/**
 * Version of the topic layout; bump it with an incompatible gossip schema. 2: no envelope
 * signatures (StrictNoSign), each message names its author (a node of layout 1 would drop these).
 */
export const TOPIC_VERSION = "2";

/** The topic string of a run and kind; throws WireError on a malformed runId. */
export function stringifyTopic(topic: Topic): string {
  if (!isRunId(topic.runId)) {
    throw new WireError("WIRE_BAD_FIELD", "topic: runId must be 64 lowercase hex", {
      field: "runId",
      value: topic.runId,
    });
  }
  return `${PROTOCOL_PREFIX}/${TOPIC_VERSION}/${topic.runId}/${topic.kind}`;
}

/** Parses a topic string; null for anything that is not exactly one of ours. */
export function parseTopic(s: string): Topic | null {
  const parts = s.split("/");
  if (parts.length !== 5 || parts[0] !== "" || `/${parts[1]}` !== PROTOCOL_PREFIX) return null;
  if (parts[2] !== TOPIC_VERSION || !isRunId(parts[3])) return null;
  const kind = TOPIC_KINDS.find((k) => k === parts[4]);
  return kind === undefined ? null : { runId: parts[3], kind };
}

/** Every request/response protocol. */
export const PROTOCOL_NAMES = ["runspec", "snapshot", "commits", "checksum"] as const;
export type ProtocolName = (typeof PROTOCOL_NAMES)[number];

/** `/seedswarm/<name>/<version>`. */
export function protocolId(name: ProtocolName, version = "1.0.0"): string {
  return `${PROTOCOL_PREFIX}/${name}/${version}`;
}

/** The current id of every request/response protocol. */
export const PROTOCOLS: Readonly<Record<ProtocolName, string>> = {
  runspec: protocolId("runspec"),
  snapshot: protocolId("snapshot"),
  commits: protocolId("commits"),
  checksum: protocolId("checksum"),
};

/** Prefix of our private DHT: it speaks `${DHT_PROTOCOL_PREFIX}/kad/1.0.0`, apart from IPFS. */
export const DHT_PROTOCOL_PREFIX = PROTOCOL_PREFIX;
/** kad-dht 16 takes the whole id as its `protocol` option (default `/ipfs/kad/1.0.0`). */
export const DHT_PROTOCOL = `${DHT_PROTOCOL_PREFIX}/kad/1.0.0`;
