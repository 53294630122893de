/**
 * Debian packages some tests drive (Chromium for the dashboard, docker-compose for the compose
 * file): installed by the test itself where it can (apt-get, as root or through passwordless
 * sudo), so `npm test` works on a fresh machine with nothing installed by hand. Where it cannot,
 * the caller skips with the reason this returns.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const tried = new Map<string, string | null>();

function onPath(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

function run(argv: string[]): boolean {
  const r = spawnSync(argv[0], argv.slice(1), {
    stdio: "ignore",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    timeout: 600_000,
  });
  return r.status === 0;
}

/**
 * Makes `command` (a name on PATH or an absolute path) available, installing Debian package
 * `pkg` when it is missing. Null when available; otherwise why not (for a skip message).
 */
export function ensureSystemPackage(command: string, pkg: string): string | null {
  const present = () => (command.startsWith("/") ? existsSync(command) : onPath(command));
  if (present()) return null;
  const key = `${command}:${pkg}`;
  if (tried.has(key)) return tried.get(key) ?? null;
  let problem: string | null = null;
  if (!onPath("apt-get")) {
    problem = `${command} is missing and this is not a Debian-like system: install ${pkg} by hand`;
  } else {
    const root = process.getuid?.() === 0;
    const sudo = root ? [] : ["sudo", "-n"];
    if (!root && !run(["sudo", "-n", "true"])) {
      problem = `${command} is missing; installing ${pkg} needs root or passwordless sudo: sudo apt-get install -y ${pkg}`;
    } else if (!run([...sudo, "apt-get", "update", "-qq"]) || !run([...sudo, "apt-get", "install", "-y", "-qq", pkg])) {
      problem = `${command} is missing and apt-get install -y ${pkg} failed (no package mirror reachable?)`;
    } else if (!present()) {
      problem = `apt-get installed ${pkg} but ${command} is still missing`;
    }
  }
  tried.set(key, problem);
  return problem;
}
