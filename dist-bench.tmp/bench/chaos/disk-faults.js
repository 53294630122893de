/**
 * R11: bad disks under a real node (alone: the disk, not the swarm, is under test).
 * - full: the data dir is a small tmpfs filled up while the node runs (a real ENOSPC, not a
 *   simulated one): checkpoints and commit-log lines fail, training goes on; once space is back
 *   the next checkpoint succeeds; a stop while full exits 1 (logged); the restart resumes the
 *   right state.
 * - torn: SIGKILL, then a torn record appended to the commit log, the last checkpoint truncated,
 *   a stale temp file left: the restart cuts the record, falls back to the previous checkpoint,
 *   removes the temp file and replays the log to where the node was.
 * - no checkpoint: both checkpoints corrupted: the restart replays the whole log from the
 *   initial state.
 * A case "survives" when the node keeps its state right: it resumes exactly at a state it had
 * applied (same iteration, same checksum), never one it did not, and exits as documented.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCheckpoint } from "../../node/store/checkpoint.js";
import { Node, tempDir } from "../../test/e2e/node-process.js";
import { check } from "./scenario.js";
import { OPEN_ENDED, reach, runFolder, sleep } from "./swarm-logs.js";
/** A node alone (the disk is under test, not the swarm), checkpointing every `k` iterations. */
const alone = (k) => [...OPEN_ENDED, "--join-wait", "300", "--checkpoint-every", String(k)];
/** Writes a filler file until the filesystem is full (ENOSPC); returns its size. */
function fill(path) {
    const fd = openSync(path, "w");
    let size = 0;
    try {
        for (const chunk of [1 << 16, 4096, 256, 16, 1]) {
            const buf = Buffer.alloc(chunk, 1);
            for (;;) {
                try {
                    size += writeSync(fd, buf);
                }
                catch {
                    break;
                }
            }
        }
    }
    finally {
        closeSync(fd);
    }
    return size;
}
/** The checksum a node logged after applying `iteration` (undefined: it did not log one). */
const appliedSum = (n, iteration) => n.applied(iteration)?.checksum;
/** Where a restarted node resumed and with what checksum ("commit log replayed", else "resumed from checkpoint"). */
function resumedAt(n) {
    const l = n.lines.find((x) => x.msg === "commit log replayed") ?? n.lines.find((x) => x.msg === "resumed from checkpoint");
    return { iteration: l?.iteration ?? 0, checksum: l?.checksum };
}
/** The data dir on a small tmpfs, filled up twice: while training, and at the stop. */
export async function fullDisk(k = 10) {
    const mnt = mkdtempSync(join(tmpdir(), "seedswarm-tmpfs-"));
    try {
        execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt], { stdio: "pipe" });
    }
    catch (err) {
        rmSync(mnt, { recursive: true, force: true });
        return [check("full disk: a tmpfs could be mounted (needs root)", false, `not run: ${err.message.split("\n")[0]}`)];
    }
    const dir = join(mnt, "data");
    const filler = join(mnt, "filler");
    const checks = [];
    const started = [];
    try {
        const a = new Node(dir, alone(k));
        started.push(a);
        await reach(a, 2 * k + 5);
        const fullAt = a.lines.findLast((l) => l.msg === "applied")?.iteration ?? 0;
        fill(filler);
        const failed = await a.waitFor((l) => l.msg === "checkpoint failed; training goes on without it", 30_000, "checkpoint failure");
        const going = await reach(a, (failed.iteration ?? 0) + k + 5, 30_000).then(() => true, () => false);
        const logStopped = a.lines.some((l) => l.msg?.startsWith("commit log write failed"));
        checks.push(check("full disk: a failed checkpoint is logged and training goes on", going && String(failed.err && failed.err.message).includes("disk full"), `checkpoint at ${failed.iteration} failed (${failed.err?.message}); ${going ? `${k + 5} more iterations applied` : "training stopped"}; commit log ${logStopped ? "stopped (logged)" : "still writing"}`));
        rmSync(filler);
        // Space is back: the next checkpoint is written (and a stopped commit log starts again).
        const cpPath = join(runFolder(dir), "checkpoint.ssck");
        let written = 0;
        for (let i = 0; i < 100 && written <= (failed.iteration ?? 0); i++) {
            await sleep(200);
            written = await loadCheckpoint(cpPath).then((c) => c.iteration, () => 0);
        }
        checks.push(check("full disk: checkpoints resume once space is back", written > (failed.iteration ?? 0), `checkpoint at ${written} after the failure at ${failed.iteration}`));
        fill(filler);
        // Stop only once a checkpoint has failed on this fill: a save that was under way when the disk
        // filled may still free a page as it replaces the previous checkpoint.
        const failures = a.lines.length;
        await a.waitFor((l) => l.msg === "checkpoint failed; training goes on without it" && a.lines.indexOf(l) >= failures, 30_000, "second checkpoint failure");
        fill(`${filler}-2`);
        a.child.kill("SIGTERM");
        const exit = await a.exit;
        const leaving = a.lines.findIndex((l) => l.msg === "leaving");
        const stopFailed = a.lines.some((l, i) => l.msg === "checkpoint failed; training goes on without it" && i > leaving);
        checks.push(check("full disk at stop: logged, exit 1", exit.code === 1 && stopFailed, `exit ${exit.code}; ${stopFailed ? "failure logged" : "no failure line"}`));
        rmSync(filler);
        rmSync(`${filler}-2`);
        const b = new Node(dir, alone(k));
        started.push(b);
        await b.address();
        const r = resumedAt(b);
        await reach(b, r.iteration + 3);
        const right = r.checksum !== undefined && r.checksum === appliedSum(a, r.iteration);
        checks.push(check("full disk: the restart resumes a state the node had applied", right && r.iteration >= written, `resumed at ${r.iteration} (last checkpoint ${written}, full at ~${fullAt}); checksum ${right ? "matches" : "DIFFERS from"} the one applied then`));
        b.child.kill("SIGTERM");
        await b.exit;
    }
    finally {
        // Nothing may hold the mount when it goes (a failed wait leaves a node running).
        for (const n of started)
            if (n.child.exitCode === null && n.child.signalCode === null)
                n.child.kill("SIGKILL");
        await Promise.all(started.map((n) => n.exit));
        spawnSync("umount", [mnt]);
        rmSync(mnt, { recursive: true, force: true });
    }
    return checks;
}
/** SIGKILL, then a torn log record, a truncated checkpoint and a stale temp file; then both checkpoints corrupted. */
export async function tornAndCorrupt(k = 10) {
    const checks = [];
    const dir = await tempDir();
    const a = new Node(dir, alone(k));
    await reach(a, 3 * k + 5);
    const run = runFolder(dir);
    // Two checkpoints written (fsyncs can take seconds on a busy disk), so there is one to fall back to.
    const cp = join(run, "checkpoint.ssck");
    // (Mid-rotation the two names share one file: wait for two distinct ones.)
    const distinct = () => existsSync(`${cp}.prev`) && existsSync(cp) && statSync(cp).ino !== statSync(`${cp}.prev`).ino;
    for (let i = 0; i < 300 && !distinct(); i++)
        await sleep(100);
    a.child.kill("SIGKILL");
    await a.exit;
    const logText = readFileSync(join(run, "commits.jsonl"), "utf8");
    const logLines = logText.trim().split("\n").map((l) => JSON.parse(l));
    const lastLogged = Math.max(...logLines.map((l) => l.iteration)) + 1;
    // The reference state: what the node logged as applied, and the checksum its log holds for that
    // commit. A SIGKILL can take the last "applied" stdout line (pino writes asynchronously) after
    // the commit log (written synchronously) already holds the commit: then the log's word stands.
    const loggedSum = logLines.find((l) => l.iteration === lastLogged - 1)?.checksum;
    const expectedSum = appliedSum(a, lastLogged) ?? loggedSum;
    appendFileSync(join(run, "commits.jsonl"), '{"iteration":999,"hash":"ab');
    const size = readFileSync(cp).length;
    truncateSync(cp, size - 9);
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
    const stale = `checkpoint.ssck.tmp-${dead}-1`;
    writeFileSync(join(run, stale), Buffer.alloc(100_000));
    const b = new Node(dir, alone(k));
    await reach(b, lastLogged + 5);
    const r = resumedAt(b);
    const lines = (m) => b.lines.some((l) => l.msg === m);
    const fallback = b.lines.find((l) => l.msg === "resumed from checkpoint");
    checks.push(check("torn commit log record: truncated with a log line", lines("commit log: torn last record truncated"), lines("commit log: torn last record truncated") ? "logged and cut" : "no log line"));
    checks.push(check("truncated checkpoint: falls back to the previous one", lines("checkpoint unusable; falling back") && fallback?.source === "previous checkpoint", `resumed from ${fallback?.source} at ${fallback?.iteration}`));
    checks.push(check("stale temp file removed at start", b.lines.some((l) => l.msg === "stale temporary files removed" && l.files.includes(stale)), "checked by name"));
    const right = r.iteration === lastLogged && r.checksum !== undefined && r.checksum === expectedSum && r.checksum === loggedSum;
    checks.push(check("after SIGKILL + torn log + truncated checkpoint: resumes at the last logged iteration, same checksum", right, `logged ${lastLogged}, resumed ${r.iteration}; checksum ${right ? "matches" : `differs (resumed ${r.checksum}, applied ${appliedSum(a, lastLogged)}, logged ${loggedSum})`}`));
    b.child.kill("SIGTERM");
    const eb = await b.exit;
    const final = b.result();
    // Both checkpoints unreadable: the whole log replays from the initial state.
    for (const f of ["checkpoint.ssck", "checkpoint.ssck.prev"]) {
        if (!existsSync(join(run, f)))
            continue;
        const bytes = readFileSync(join(run, f));
        bytes[bytes.length - 2] ^= 0x04;
        writeFileSync(join(run, f), bytes);
    }
    const c = new Node(dir, alone(k));
    await reach(c, final.iteration + 2);
    const rc = resumedAt(c);
    checks.push(check("both checkpoints corrupt: replays the log from the initial state, never trains on garbage", eb.code === 0 && rc.iteration === final.iteration && rc.checksum === final.checksum && c.lines.some((l) => l.msg?.startsWith("no usable checkpoint")), `stopped at ${final.iteration}; resumed at ${rc.iteration}, checksum ${rc.checksum === final.checksum ? "matches" : "differs"}`));
    c.child.kill("SIGTERM");
    await c.exit;
    return checks;
}
export async function diskFaults(k = 10) {
    const checks = [...(await fullDisk(k)), ...(await tornAndCorrupt(k))];
    const survived = checks.filter((c) => c.pass).length;
    return {
        id: "r11",
        title: "R11: disk faults",
        figures: { r11_survived: survived === checks.length ? 1 : 0, r11_checks_passed: survived, r11_checks: checks.length },
        checks,
        notes: `One tiny-spsa node (the disk is under test, not the swarm), checkpoint every ${k}. Full disk: the data dir is a 2 MiB tmpfs mounted for the test and filled with a file until ENOSPC (a real full disk). ` +
            "Policy (docs/architecture.md): a checkpoint that cannot be written is logged and training goes on; a stop whose checkpoint cannot be written exits 1. `r11_survived` is 1 when every check below holds.",
    };
}
//# sourceMappingURL=disk-faults.js.map