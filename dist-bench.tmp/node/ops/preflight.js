/**
 * Checks made before a command writes anything or opens a socket, so that a bad data directory,
 * an output in the way or a port in use fails at once with a message that names it, leaving
 * nothing half-written behind.
 */
import { access, constants, stat } from "node:fs/promises";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";
import { multiaddr } from "@multiformats/multiaddr";
import { SeedswarmError } from "../../protocol/errors.js";
/** A precondition that does not hold; context names the path or address. */
export class PreflightError extends SeedswarmError {
}
const errno = (err) => err.code ?? err.message;
/** The nearest path at or above `path` that exists, with its stat. */
async function nearestExisting(path) {
    let p = resolve(path);
    for (;;) {
        try {
            const s = await stat(p);
            return { path: p, isDir: s.isDirectory() };
        }
        catch (err) {
            // A missing path, or one under a file: look further up (the file is reported there).
            if ((errno(err) !== "ENOENT" && errno(err) !== "ENOTDIR") || dirname(p) === p)
                throw err;
            p = dirname(p);
        }
    }
}
/**
 * Checks that `dir` is (or can be created as) a directory this process can read and write.
 * Creates nothing.
 *
 * @param what how messages name it, e.g. "data dir".
 * @throws PreflightError DIR_UNUSABLE naming the directory and the problem.
 */
export async function checkWritableDir(dir, what) {
    const fail = (problem) => {
        throw new PreflightError("DIR_UNUSABLE", `${what} ${dir}: ${problem}`, { path: dir });
    };
    let found;
    try {
        found = await nearestExisting(dir);
    }
    catch (err) {
        return fail(`cannot inspect it (${errno(err)})`);
    }
    const exists = found.path === resolve(dir);
    if (!found.isDir) {
        return fail(exists ? "is not a directory" : `${found.path} is not a directory`);
    }
    // An existing directory must be readable (checkpoints, identity) and writable; a missing one
    // needs a writable ancestor to be created in. access() also reports read-only file systems.
    const mode = exists ? constants.R_OK | constants.W_OK | constants.X_OK : constants.W_OK | constants.X_OK;
    try {
        await access(found.path, mode);
    }
    catch (err) {
        const code = errno(err);
        const problem = code === "EROFS" ? "is on a read-only file system" : `permission denied (${code})`;
        fail(exists ? `cannot read and write it: ${problem}` : `cannot create it in ${found.path}: ${problem}`);
    }
}
/**
 * Checks that a file can be written at `path`: its directory exists (or can be created) and is
 * writable, and the file does not exist unless `force`.
 *
 * @throws PreflightError FILE_EXISTS or DIR_UNUSABLE.
 */
export async function checkNewFile(path, force, what) {
    try {
        const s = await stat(path);
        if (s.isDirectory()) {
            throw new PreflightError("FILE_EXISTS", `${what} ${path} is a directory`, { path });
        }
        if (!force) {
            throw new PreflightError("FILE_EXISTS", `${what} ${path} exists (--force overwrites it)`, { path });
        }
    }
    catch (err) {
        if (err instanceof PreflightError)
            throw err;
        // ENOTDIR: a file stands where a directory should; checkWritableDir below names it.
        if (errno(err) !== "ENOENT" && errno(err) !== "ENOTDIR") {
            throw new PreflightError("DIR_UNUSABLE", `${what} ${path}: cannot inspect it (${errno(err)})`, { path });
        }
    }
    await checkWritableDir(dirname(resolve(path)), `directory of ${what}`);
}
/** Host and TCP port a listen multiaddr binds, or null when it binds no fixed port. */
function hostPort(addr) {
    const parts = multiaddr(addr).getComponents();
    const ip = parts.find((c) => c.name === "ip4" || c.name === "ip6");
    const tcp = parts.find((c) => c.name === "tcp");
    const port = Number(tcp?.value ?? 0);
    if (port === 0)
        return null;
    return { host: ip?.value ?? "0.0.0.0", port };
}
/**
 * Tries each listen address's TCP port (bind, then close at once), so that a port in use is
 * reported before the node writes anything. Port 0 (any free port) is skipped.
 *
 * @throws PreflightError PORT_IN_USE (`port 4001 is in use`) or ADDRESS_UNAVAILABLE.
 */
export async function checkListenAddrs(listen) {
    for (const addr of listen) {
        const hp = hostPort(addr);
        if (hp === null)
            continue;
        await new Promise((ok, reject) => {
            const server = createServer();
            server.once("error", (err) => reject(listenError(err, addr, hp.port)));
            server.listen({ host: hp.host, port: hp.port, exclusive: true }, () => server.close(() => ok()));
        });
    }
}
/** Turns a listen failure (here or from libp2p) into a PreflightError naming the port. */
export function listenError(err, addr, port) {
    const code = errno(err);
    if (code === "EADDRINUSE") {
        return new PreflightError("PORT_IN_USE", `port ${port} is in use (listen address ${addr})`, { addr, port });
    }
    if (code === "EADDRNOTAVAIL") {
        return new PreflightError("ADDRESS_UNAVAILABLE", `cannot listen on ${addr}: not an address of this machine`, {
            addr,
        });
    }
    if (code === "EACCES") {
        return new PreflightError("ADDRESS_UNAVAILABLE", `cannot listen on ${addr}: port ${port} needs privileges`, {
            addr,
            port,
        });
    }
    return err;
}
/** A libp2p start failure that is really a port in use becomes the same clear message. */
export function explainStartError(err, listen) {
    const text = String(err?.message ?? err);
    const m = /EADDRINUSE[^\d]*(?:[\d.:[\]a-f]*:)?(\d+)/i.exec(text);
    if (m === null)
        return err;
    const port = Number(m[1]);
    const addr = listen.find((a) => hostPort(a)?.port === port) ?? `tcp port ${port}`;
    return listenError(Object.assign(new Error(text), { code: "EADDRINUSE" }), addr, port);
}
//# sourceMappingURL=preflight.js.map