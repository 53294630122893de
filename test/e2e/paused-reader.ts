/**
 * Test helper for finding 3: hostile hosts that never read. A paused subscriber takes every
 * gossipsub stream a node opens to it and pauses it (no yamux window update ever goes back);
 * unread streams ask a sync protocol for its largest reply and are never read.
 */
import "../../node/ground/polyfills.js";
import { readFileSync } from "node:fs";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PeerId, Stream } from "@libp2p/interface";
import { lpStream } from "@libp2p/utils";
import { multiaddr } from "@multiformats/multiaddr";
import { createSwarmNode, defaultNetworkOptions, type SwarmNode } from "../../node/network/libp2p.js";
import { createLogger } from "../../node/ground/index.js";
import { MAX_COMMITS_PER_RESPONSE, MAX_SNAPSHOT_CHUNK_BYTES } from "../../protocol/limits.js";
import {
  encodeChecksumRequest,
  encodeCommitsRequest,
  encodeRunSpecRequest,
  encodeSnapshotRequest,
} from "../../protocol/sync-codec.js";
import { PROTOCOLS } from "../../protocol/topics.js";

const MESHSUB = ["/meshsub/1.2.0", "/meshsub/1.1.0", "/meshsub/1.0.0"];

/** Resident memory of a process, in MiB. */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Valid requests of every sync protocol, each asking for the largest reply it can. */
export function largestRequests(runId: string): [string, Uint8Array][] {
  return [
    [PROTOCOLS.snapshot, encodeSnapshotRequest({ runId, chunk: 0, chunkSize: MAX_SNAPSHOT_CHUNK_BYTES })],
    [PROTOCOLS.commits, encodeCommitsRequest({ runId, fromIteration: 0, max: MAX_COMMITS_PER_RESPONSE })],
    [PROTOCOLS.checksum, encodeChecksumRequest({ runId, iteration: Number.MAX_SAFE_INTEGER })],
    [PROTOCOLS.runspec, encodeRunSpecRequest({ runId })],
  ];
}

/** A host that pauses every gossip stream opened to it, dialled into `addrs` and subscribed to `topics`. */
export async function pausedSubscriber(addrs: readonly string[], topics: readonly string[]): Promise<SwarmNode> {
  const host = await createSwarmNode(
    { ...defaultNetworkOptions, listen: ["/ip4/127.0.0.1/tcp/0"], mdns: false, bootstrap: [], scoredTopics: [...topics] },
    await generateKeyPair("Ed25519"),
    createLogger({ level: "silent" }),
  );
  // Before dialling: the nodes' outbound gossip streams land here and are never read.
  await host.handle(MESHSUB, (stream) => stream.pause(), { force: true });
  // A few tries each: on a loaded machine a Noise handshake can time out.
  for (const a of addrs)
    for (let attempt = 1; ; attempt++) {
      try {
        await host.dial(multiaddr(a), { signal: AbortSignal.timeout(30_000) });
        break;
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
  for (const t of topics) host.services.pubsub.subscribe(t);
  return host;
}

/**
 * Opens `n` streams of each protocol on `peer`, writes its request and pauses reading for good.
 * Streams the server refused at once (past its stream cap) are left out.
 */
export async function unreadStreams(host: SwarmNode, peer: PeerId, requests: [string, Uint8Array][], n = 16): Promise<Stream[]> {
  const open = async ([protocol, req]: [string, Uint8Array]): Promise<Stream[]> => {
    try {
      // No signal: one given here stays on the stream and would abort it when it fires.
      const s = await host.dialProtocol(peer, protocol);
      await lpStream(s).write(req);
      s.pause();
      return [s];
    } catch {
      return [];
    }
  };
  return (await Promise.all(requests.flatMap((r) => Array.from({ length: n }, () => open(r))))).flat();
}
