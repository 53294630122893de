/** The key an address counts under: an IPv4 address, or an IPv6 /64 prefix; null when not IP. */
export function ipKey(addr) {
    const c = addr.getComponents().find((x) => x.name === "ip4" || x.name === "ip6");
    if (c?.value === undefined)
        return null;
    if (c.name === "ip4")
        return c.value;
    // An IPv4-mapped address is that IPv4 host (multiaddr writes it in hex: ::ffff:c633:6402).
    const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(c.value);
    if (dotted)
        return dotted[1];
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(c.value);
    if (hex) {
        const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
        return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
    }
    const [head, tail] = c.value.toLowerCase().split("::");
    const left = head ? head.split(":") : [];
    const right = tail ? tail.split(":") : [];
    const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
    return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
/** Loopback: tests, benches and multi-GPU hosts run many nodes on one machine. */
function isLoopback(key) {
    return key.startsWith("127.") || key === "0:0:0:0::/64";
}
/** The connection gater that enforces the per-IP cap. */
export function ipLimitGater(opts) {
    const open = new Map();
    return {
        denyInboundConnection: (maConn) => {
            if (opts.maxConnectionsPerIp <= 0)
                return false;
            const key = ipKey(maConn.remoteAddr);
            if (key === null || (!opts.limitLoopback && isLoopback(key)))
                return false;
            const n = open.get(key) ?? 0;
            if (n >= opts.maxConnectionsPerIp)
                return true;
            open.set(key, n + 1);
            maConn.addEventListener("close", () => {
                const left = (open.get(key) ?? 1) - 1;
                if (left > 0)
                    open.set(key, left);
                else
                    open.delete(key);
            }, { once: true });
            return false;
        },
    };
}
//# sourceMappingURL=connection-limits.js.map