/** The `--http <host:port>` flag shared by `node`, `swarm` and `status`. */
import { isIP } from "node:net";
import { InvalidArgumentError } from "commander";
/** Parses "host:port" or "[v6]:port"; the port may be 0 (any free port) when `allowZero`. */
export function parseHostPort(raw, allowZero = true) {
    const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(raw.trim());
    const host = m?.[1] ?? m?.[2];
    const port = Number(m?.[3]);
    if (!m || !host)
        throw new InvalidArgumentError(`expected host:port (e.g. 127.0.0.1:9090), got "${raw}"`);
    if (m[1] !== undefined && isIP(host) !== 6)
        throw new InvalidArgumentError(`"${host}" is not an IPv6 address`);
    if (port > 65535 || (!allowZero && port === 0)) {
        throw new InvalidArgumentError(`port must be ${allowZero ? 0 : 1} to 65535, got ${port}`);
    }
    if (m[2] !== undefined && isIP(host) === 0 && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(host)) {
        throw new InvalidArgumentError(`"${host}" is not an IP address or host name`);
    }
    return { host, port };
}
/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host) {
    return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host) || host === "::ffff:127.0.0.1";
}
/** The --http value after the public-interface check ("off by default on public interfaces"). */
export function checkHttpExposure(http, allowPublic) {
    if (!http)
        return null;
    if (!isLoopback(http.host) && !allowPublic) {
        throw new InvalidArgumentError(`--http ${http.host}:${http.port} would serve status and metrics beyond this machine; add --http-public to mean it`);
    }
    return http;
}
//# sourceMappingURL=http-options.js.map