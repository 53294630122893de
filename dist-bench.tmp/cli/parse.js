/** Flag parsers shared by the commands: each validates and throws a message naming the problem. */
import { multiaddr } from "@multiformats/multiaddr";
import { peerIdFromString } from "@libp2p/peer-id";
import { InvalidArgumentError } from "commander";
/** An integer flag within [min, max]. */
export function intIn(min, max) {
    return (raw) => {
        const v = Number(raw);
        if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(v) || v < min || v > max) {
            throw new InvalidArgumentError(`expected an integer from ${min} to ${max}, got "${raw}"`);
        }
        return v;
    };
}
/** A decimal number flag within [min, max]. */
export function numberIn(min, max) {
    return (raw) => {
        const v = Number(raw);
        if (raw.trim() === "" || !Number.isFinite(v) || v < min || v > max) {
            throw new InvalidArgumentError(`expected a number from ${min} to ${max}, got "${raw}"`);
        }
        return v;
    };
}
/** A multiaddr the node can listen on or dial over TCP. */
export function tcpMultiaddr(raw) {
    let names;
    try {
        names = multiaddr(raw).getComponents().map((c) => c.name);
    }
    catch (err) {
        throw new InvalidArgumentError(`not a multiaddr: "${raw}" (${err.message})`);
    }
    if (!names.includes("tcp")) {
        throw new InvalidArgumentError(`"${raw}" has no /tcp/<port> part (seedswarm speaks TCP)`);
    }
    return raw;
}
/** A peer id in its canonical string form (as `seedswarm id` prints it). */
export function peerId(raw) {
    let canonical;
    try {
        canonical = peerIdFromString(raw).toString();
    }
    catch {
        throw new InvalidArgumentError(`"${raw}" is not a peer id (seedswarm id shows a node's id)`);
    }
    if (canonical !== raw)
        throw new InvalidArgumentError(`peer id "${raw}" must be written as ${canonical}`);
    return raw;
}
/** A bootstrap peer: a TCP multiaddr ending in /p2p/<peer id>. */
export function peerMultiaddr(raw) {
    tcpMultiaddr(raw);
    const p2p = multiaddr(raw).getComponents().find((c) => c.name === "p2p");
    if (p2p?.value === undefined) {
        throw new InvalidArgumentError(`"${raw}" does not end in /p2p/<peer id> (seedswarm id shows a node's id)`);
    }
    try {
        peerIdFromString(p2p.value);
    }
    catch {
        throw new InvalidArgumentError(`"${raw}": "${p2p.value}" is not a peer id`);
    }
    return raw;
}
/** An http:// or https:// base URL. */
export function httpUrl(raw) {
    let url;
    try {
        url = new URL(raw);
    }
    catch {
        throw new InvalidArgumentError(`not a URL: "${raw}"`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new InvalidArgumentError(`expected an http:// or https:// URL, got "${raw}"`);
    }
    return raw.replace(/\/+$/, "");
}
//# sourceMappingURL=parse.js.map