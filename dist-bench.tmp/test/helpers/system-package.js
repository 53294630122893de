/**
 * Debian packages some tests drive (Chromium for the dashboard, docker-compose for the compose
 * file): installed by the test itself where it can (apt-get, as root or through passwordless
 * sudo), so `npm test` works on a fresh machine with nothing installed by hand. Where it cannot,
 * the caller skips with the reason this returns.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
const tried = new Map();
function onPath(command) {
    return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}
function run(argv) {
    const r = spawnSync(argv[0], argv.slice(1), {
        stdio: "ignore",
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
        timeout: 600_000,
    });
    return r.status === 0;
}
/**
 * Installs Debian packages with apt-get (as root or through passwordless sudo), from `release`
 * when given (e.g. "bookworm-backports", whose source is added first where it is missing). Null
 * when apt-get succeeded; otherwise why not (for a skip message).
 */
export function aptInstall(pkgs, release) {
    const wanted = `${release ? `-t ${release} ` : ""}${pkgs.join(" ")}`;
    if (!onPath("apt-get"))
        return `this is not a Debian-like system: install ${pkgs.join(", ")} by hand`;
    const root = process.getuid?.() === 0;
    const sudo = root ? [] : ["sudo", "-n"];
    if (!root && !run(["sudo", "-n", "true"]))
        return `installing ${wanted} needs root or passwordless sudo: sudo apt-get install -y ${wanted}`;
    if (release && !run(["sh", "-c", `grep -rqs "${release}" /etc/apt/sources.list /etc/apt/sources.list.d/`])) {
        const source = `Types: deb\nURIs: http://deb.debian.org/debian\nSuites: ${release}\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`;
        if (!run([...sudo, "sh", "-c", `printf '${source}' > /etc/apt/sources.list.d/${release}.sources`]))
            return `could not add the ${release} apt source`;
    }
    const target = release ? ["-t", release] : [];
    if (!run([...sudo, "apt-get", "update", "-qq"]) || !run([...sudo, "apt-get", "install", "-y", "-qq", ...target, ...pkgs]))
        return `apt-get install -y ${wanted} failed (no package mirror reachable?)`;
    return null;
}
/**
 * Makes `command` (a name on PATH or an absolute path) available, installing Debian package
 * `pkg` when it is missing. Null when available; otherwise why not (for a skip message).
 */
export function ensureSystemPackage(command, pkg) {
    const present = () => (command.startsWith("/") ? existsSync(command) : onPath(command));
    if (present())
        return null;
    const key = `${command}:${pkg}`;
    if (tried.has(key))
        return tried.get(key) ?? null;
    let problem = aptInstall([pkg]);
    if (problem)
        problem = `${command} is missing: ${problem}`;
    else if (!present())
        problem = `apt-get installed ${pkg} but ${command} is still missing`;
    tried.set(key, problem);
    return problem;
}
//# sourceMappingURL=system-package.js.map