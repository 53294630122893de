/**
 * The Docker files without a Docker engine: the image's ENTRYPOINT, CMD and ENV run as a plain
 * process against the built dist/; `docker-compose config` validates compose.yaml where installed;
 * and the compose topology (bootstrap with the committed identity, two peers) runs as plain
 * processes with the compose file's own commands and variables. docker/smoke.sh runs the real
 * thing where an engine is reachable.
 * The HEALTHCHECK runs as a plain process too, against a node started by the image's command.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { load } from "js-yaml";
import { freePort } from "../helpers/free-port.js";
import { ensureSystemPackage } from "../helpers/system-package.js";
import { loadCheckpoint } from "../../node/store/checkpoint.js";
import { GC_ON_MAIN_THREAD_FLAG } from "../../node/ops/heap-policy.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const DOCKER = join(ROOT, "docker");
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "seedswarm-docker-"));
  dirs.push(d);
  return d;
}

interface Stage {
  env: Record<string, string>;
  entrypoint: string[];
  cmd: string[];
  healthcheck: string[];
  expose: string[];
  volume: string[];
  user: string;
}

/** The final stage of a Dockerfile: ENV, ENTRYPOINT/CMD/HEALTHCHECK (exec form), EXPOSE, VOLUME, USER. */
function finalStage(path: string): Stage {
  const lines = readFileSync(path, "utf8")
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const last = lines.findLastIndex((l) => /^FROM\s/i.test(l));
  const stage: Stage = { env: {}, entrypoint: [], cmd: [], healthcheck: [], expose: [], volume: [], user: "root" };
  for (const line of lines.slice(last + 1)) {
    const [, word, rest] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    switch (word?.toUpperCase()) {
      case "ENV":
        for (const m of rest.matchAll(/(\w+)=("[^"]*"|\S+)/g)) stage.env[m[1]] = m[2].replace(/^"|"$/g, "");
        break;
      case "ENTRYPOINT":
        stage.entrypoint = JSON.parse(rest);
        break;
      case "CMD":
        stage.cmd = JSON.parse(rest);
        break;
      case "HEALTHCHECK":
        stage.healthcheck = JSON.parse(rest.slice(rest.indexOf("CMD ") + 4));
        break;
      case "EXPOSE":
        stage.expose.push(...rest.split(/\s+/));
        break;
      case "VOLUME":
        stage.volume.push(...JSON.parse(rest));
        break;
      case "USER":
        stage.user = rest;
        break;
    }
  }
  return stage;
}

/** The image's /app is this checkout (dist/ built by npm run build). */
const onHost = (argv: string[]) => argv.map((a) => a.replace(/^\/app\//, `${ROOT}/`));

interface Run {
  code: number | null;
  stdout: string;
  lines: Record<string, unknown>[];
  stderr: string;
}

function run(argv: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    // Only the variables the container would have (plus PATH/HOME): no SEEDSWARM_* from outside.
    const base = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
    const child = spawn(argv[0] === "node" ? process.execPath : argv[0], argv.slice(1), {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...base, ...env },
    });
    let out = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("exit", (code) => {
      const lines: Record<string, unknown>[] = [];
      for (const l of out.split("\n")) {
        try {
          lines.push(JSON.parse(l) as Record<string, unknown>);
        } catch {
          // not a JSON line (pretty --print-config output)
        }
      }
      resolve({ code, stdout: out, lines, stderr });
    });
  });
}

const HEALTHCHECK = ["node", "/app/dist/cli/main.js", "status", "--healthz", "--http", "127.0.0.1:9090"];

describe("docker/Dockerfile and Dockerfile.gpu", () => {
  const cpu = finalStage(join(DOCKER, "Dockerfile"));
  const gpu = finalStage(join(DOCKER, "Dockerfile.gpu"));

  it("runtime stage: non-root, the CLI as ENTRYPOINT, a node by default, /data volume, port 4001, HEALTHCHECK on /healthz", () => {
    for (const s of [cpu, gpu]) {
      assert.deepEqual(s.entrypoint, ["node", GC_ON_MAIN_THREAD_FLAG, "/app/dist/cli/main.js"]);
      assert.deepEqual(s.cmd, ["node"]);
      assert.deepEqual(s.healthcheck, HEALTHCHECK);
      assert.equal(s.env.SEEDSWARM_HTTP, "127.0.0.1:9090", "the endpoint the healthcheck asks is on by default");
      assert.equal(s.env.SEEDSWARM_DATA_DIR, "/data");
      assert.deepEqual(s.volume, ["/data"]);
      assert.deepEqual(s.expose, ["4001"]);
      assert.notEqual(s.user, "root");
    }
    // The default GPU target is the WebGPU route: the update on the GPU through Vulkan, which
    // needs the toolkit's graphics capability to mount the driver's Vulkan ICD.
    assert.equal(gpu.env.SEEDSWARM_UPDATE_KERNELS, "webgpu");
    assert.deepEqual(gpu.env.NVIDIA_DRIVER_CAPABILITIES.split(",").sort(), ["compute", "graphics", "utility"]);
    const gpuFile = readFileSync(join(DOCKER, "Dockerfile.gpu"), "utf8");
    assert.match(gpuFile, /apt-get install -y --no-install-recommends libvulkan1/);
    // The tfjs-node-gpu route stays as the `cuda` target.
    assert.match(gpuFile, /CUDA_IMAGE=nvidia\/cuda:11\.2\.\d+-cudnn8-runtime/);
    assert.match(gpuFile, /FROM \$\{CUDA_IMAGE\} AS cuda[\s\S]*SEEDSWARM_BACKEND=tensorflow-gpu/);
    const dockerignore = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n");
    for (const p of ["node_modules", "dist", ".git"]) assert.ok(dockerignore.includes(p), `.dockerignore has ${p}`);
  });

  it("the HEALTHCHECK command passes against the image's running node, and fails once it is gone", async () => {
    const port = await freePort();
    const env = {
      ...cpu.env,
      SEEDSWARM_DATA_DIR: await tempDir(),
      SEEDSWARM_LISTEN: "/ip4/127.0.0.1/tcp/0",
      SEEDSWARM_HTTP: `127.0.0.1:${port}`,
      SEEDSWARM_PRESET: "tiny-spsa",
      // Long enough to still be running when the check comes.
      SEEDSWARM_ITERATIONS: "1000000",
      SEEDSWARM_JOIN_WAIT: "0",
      SEEDSWARM_MDNS: "false",
      SEEDSWARM_BACKEND: "wasm",
    };
    const argv = onHost([...cpu.entrypoint, ...cpu.cmd]);
    const node = spawn(process.execPath, argv.slice(1), {
      stdio: ["ignore", "pipe", "ignore"],
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    });
    const exited = new Promise<number | null>((r) => node.on("exit", r));
    try {
      // Healthy means an iteration applied recently: wait for a few.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("node applied no iteration in 30 s")), 30_000);
        let seen = 0;
        node.stdout.on("data", (d: Buffer) => {
          seen += d.toString().split("\n").filter((l) => l.includes('"msg":"applied"')).length;
          if (seen >= 3) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      // The image's HEALTHCHECK asks 127.0.0.1:9090; here the node listens on a free port.
      const check = onHost(cpu.healthcheck).map((a) => (a === "127.0.0.1:9090" ? `127.0.0.1:${port}` : a));
      const healthy = await run(check, {});
      assert.equal(healthy.code, 0, healthy.stderr);
    } finally {
      node.kill("SIGTERM");
    }
    assert.equal(await exited, 0);
    const gone = await run(onHost(cpu.healthcheck).map((a) => (a === "127.0.0.1:9090" ? `127.0.0.1:${port}` : a)), {});
    assert.equal(gone.code, 1, "unhealthy once nothing answers");
  });

  it("ENTRYPOINT + CMD with the image's ENV run as a plain process: a node that trains and leaves with a checkpoint", async () => {
    const data = await tempDir();
    const env = {
      ...cpu.env,
      SEEDSWARM_DATA_DIR: data,
      // On the host, not in a network namespace: loopback and any free port instead of 4001.
      SEEDSWARM_LISTEN: "/ip4/127.0.0.1/tcp/0",
      SEEDSWARM_HTTP: `127.0.0.1:${await freePort()}`,
      // A short, lone run, as `docker run -e ...` would set it.
      SEEDSWARM_PRESET: "tiny-spsa",
      SEEDSWARM_STOP_AT: "4",
      SEEDSWARM_JOIN_WAIT: "0",
      SEEDSWARM_MDNS: "false",
      SEEDSWARM_BACKEND: "wasm",
    };
    const printed = await run(onHost([...cpu.entrypoint, ...cpu.cmd, "--print-config"]), env);
    assert.equal(printed.code, 0, printed.stderr);
    const cfg = JSON.parse(printed.stdout) as { command: string; sources: Record<string, string> };
    assert.equal(cfg.command, "node");
    assert.equal(cfg.sources["data-dir"], "env SEEDSWARM_DATA_DIR");
    assert.equal(cfg.sources.listen, "env SEEDSWARM_LISTEN");

    const node = await run(onHost([...cpu.entrypoint, ...cpu.cmd]), env);
    assert.equal(node.code, 0, node.stderr);
    const result = node.lines.find((l) => l.msg === undefined && typeof l.peerId === "string") as {
      iteration: number;
      checksum: string;
    };
    assert.equal(result.iteration, 4);
    assert.ok(existsSync(join(data, "identity.key")));
    const runs = execFileSync("ls", [join(data, "runs")]).toString().trim();
    const cp = await loadCheckpoint(join(data, "runs", runs, "checkpoint.ssck"));
    assert.equal(cp.checksum, result.checksum);
  });
});

describe("docker/compose.yaml", () => {
  const composeText = readFileSync(join(DOCKER, "compose.yaml"), "utf8");

  it("docker-compose config accepts it (where docker-compose or docker compose is installed)", (t) => {
    const v2 = spawnSync("docker", ["compose", "version"], { stdio: "ignore" }).status === 0;
    const missing = v2 ? null : ensureSystemPackage("docker-compose", "docker-compose");
    const v1 = !v2 && missing === null;
    if (!v1 && !v2) {
      t.skip(`neither docker compose nor docker-compose: ${missing}`);
      return;
    }
    const [cmd, args] = v1 ? ["docker-compose", []] : ["docker", ["compose"]];
    const r = spawnSync(cmd, [...args, "-f", join(DOCKER, "compose.yaml"), "config", "-q"], {
      encoding: "utf8",
      env: { ...process.env, SEEDSWARM_PRESET: "tiny-spsa" },
    });
    assert.equal(r.status, 0, r.stderr);
  });

  it("bootstrap (fixed identity) + 2 peers, run as plain processes with the compose commands and variables, train one model", async () => {
    type Service = { command?: string[]; environment?: Record<string, string>; volumes?: string[]; image?: string };
    const compose = load(composeText) as { services: Record<string, Service> };
    // Compose's ${VAR:-default} in values, with the tiny preset chosen the way an operator would.
    const vars: Record<string, string> = { SEEDSWARM_PRESET: "tiny-spsa" };
    const interpolate = (v: string) => v.replace(/\$\{(\w+):-([^}]*)\}/g, (_, k: string, d: string) => vars[k] ?? d);
    const names = ["bootstrap", "peer-1", "peer-2"];
    for (const n of names) assert.ok(compose.services[n], `service ${n}`);
    assert.ok(compose.services.prometheus, "Prometheus service");
    const prom = readFileSync(join(DOCKER, "prometheus.yml"), "utf8");
    for (const n of names) assert.match(prom, new RegExp(`"${n}:9090"`), `Prometheus scrapes ${n}`);

    const ports = new Map<string, number>();
    for (const n of names) ports.set(n, await freePort());
    const bootId = /\/p2p\/(\w+)/.exec(compose.services["peer-1"].environment?.SEEDSWARM_BOOTSTRAP ?? "")?.[1];
    assert.ok(bootId, "peers name the bootstrap's peer id");
    const procs = [];
    for (const n of names) {
      const svc = compose.services[n];
      const data = await tempDir();
      for (const v of svc.volumes ?? []) {
        const [src, dst] = v.split(":");
        // Named volume at /data -> a temp dir; a bind-mounted key file -> copied into it.
        if (dst === "/data") continue;
        assert.equal(dst, "/data/identity.key", `unexpected mount ${v}`);
        copyFileSync(join(DOCKER, src), join(data, "identity.key"));
      }
      const env: Record<string, string> = { ...cpu() };
      for (const [k, v] of Object.entries(svc.environment ?? {})) env[k] = interpolate(String(v));
      // The compose network's names and ports, mapped to loopback (DNS resolution still runs).
      env.SEEDSWARM_DATA_DIR = data;
      env.SEEDSWARM_LISTEN = env.SEEDSWARM_LISTEN.replace(/\/ip4\/0\.0\.0\.0\/tcp\/4001/, `/ip4/127.0.0.1/tcp/${ports.get(n)}`);
      if (env.SEEDSWARM_BOOTSTRAP) {
        env.SEEDSWARM_BOOTSTRAP = env.SEEDSWARM_BOOTSTRAP.replace("/dns4/bootstrap/tcp/4001", `/dns4/localhost/tcp/${ports.get("bootstrap")}`);
      }
      env.SEEDSWARM_HTTP = `127.0.0.1:${await freePort()}`;
      // Test-only: a short run and no LAN discovery (peers must find each other through the
      // bootstrap, which waits for both as compose.yaml says).
      Object.assign(env, { SEEDSWARM_STOP_AT: "8", SEEDSWARM_MDNS: "false", SEEDSWARM_BACKEND: "wasm" });
      const stage = finalStage(join(DOCKER, "Dockerfile"));
      procs.push(run(onHost([...stage.entrypoint, ...(svc.command ?? stage.cmd)]), env));
    }
    const results = await Promise.all(procs);
    const finals = results.map((r, i) => {
      assert.equal(r.code, 0, `${names[i]}: ${r.stderr}`);
      return r.lines.find((l) => l.msg === undefined && typeof l.peerId === "string") as {
        iteration: number;
        checksum: string;
        peerId: string;
      };
    });
    const started = results.map((r) => r.lines.find((l) => l.msg === "node started"));
    assert.equal(started[0]?.peerId, bootId, "the bootstrap runs with the committed identity");
    assert.equal(finals[0].peerId, bootId);
    for (const f of finals) assert.equal(f.iteration, 8);
    assert.equal(new Set(finals.map((f) => f.checksum)).size, 1, "one model, bit-identical on the three nodes");
    assert.equal(new Set(finals.map((f) => f.peerId)).size, 3);
  });
});

/** The CPU image's ENV (what every compose service inherits from the image). */
function cpu(): Record<string, string> {
  return finalStage(join(DOCKER, "Dockerfile")).env;
}
