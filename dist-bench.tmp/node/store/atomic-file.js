/**
 * Durable atomic file replacement: a temp file in the same directory (so rename is atomic),
 * fsync, rename over the target, fsync the directory. A kill at any moment leaves the old file or
 * the new one, never a mix; what it can leave is a temp file, which `removeStaleTemps` deletes at
 * the next start.
 */
import { existsSync } from "node:fs";
import { link, mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
/** Makes temp names unique within a process, so overlapping writes never share a file. */
let counter = 0;
/** Temp files this process is writing now (never removed as stale). */
const inFlight = new Set();
/** `<target>.tmp-<pid>-<n>`: the pid says which process wrote it. */
const TEMP_NAME = /\.tmp-(\d+)-\d+$/;
/** Writes `content` to `path` atomically. */
export async function writeFileAtomic(path, content, opts = {}) {
    const dir = dirname(path);
    await mkdir(dir, { recursive: true });
    const tmp = `${path}.tmp-${process.pid}-${++counter}`;
    inFlight.add(tmp);
    try {
        await rm(tmp, { force: true });
        const fh = await open(tmp, "wx", opts.mode ?? 0o644);
        try {
            if (content instanceof Uint8Array)
                await fh.writeFile(content);
            else
                for (const p of content)
                    await fh.write(typeof p === "function" ? p() : p);
            await fh.sync();
        }
        catch (err) {
            await fh.close();
            // A full disk: the partial temp file must not hold the space it could not finish.
            await rm(tmp, { force: true });
            throw err;
        }
        await fh.close();
        if (opts.previous)
            await keepAsPrevious(path, opts.previous);
        await rename(tmp, path);
    }
    finally {
        inFlight.delete(tmp);
    }
    const dh = await open(dir, "r");
    await dh.sync().finally(() => dh.close());
}
/**
 * Makes `previous` a second name of the file at `path` (a hard link: no copy, and `path` exists
 * throughout, so a kill here leaves both). Where links are not supported, moves it instead.
 */
async function keepAsPrevious(path, previous) {
    // Nothing to keep (the first write, or the last file was moved aside as corrupt): the previous one stays.
    if (!existsSync(path))
        return;
    await rm(previous, { force: true });
    try {
        await link(path, previous);
    }
    catch (err) {
        const code = err.code;
        if (code === "ENOENT")
            return;
        if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV" && code !== "EMLINK")
            throw err;
        await rename(path, previous);
    }
}
/** True when a process with this pid runs now (and is not this one). */
function otherProcessAlive(pid) {
    if (pid === process.pid)
        return false;
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (err) {
        // EPERM: it exists, owned by someone else.
        return err.code === "EPERM";
    }
}
/**
 * Deletes the temp files a killed writer left in `dir` (a SIGKILL mid-checkpoint leaves one the
 * size of the model, and repeated kills would fill the disk). Spared: files this process is
 * writing, and those of another live process (a pid reused after a restart in a container is
 * this process's own pid, so its leftovers do go). Returns the names removed.
 */
export async function removeStaleTemps(dir) {
    let names;
    try {
        names = await readdir(dir);
    }
    catch (err) {
        if (err.code === "ENOENT")
            return [];
        throw err;
    }
    const removed = [];
    for (const name of names) {
        const m = TEMP_NAME.exec(name);
        const path = join(dir, name);
        if (!m || inFlight.has(path) || otherProcessAlive(Number(m[1])))
            continue;
        await rm(path, { force: true });
        removed.push(basename(path));
    }
    return removed;
}
//# sourceMappingURL=atomic-file.js.map