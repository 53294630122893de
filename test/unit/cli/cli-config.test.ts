/**
 * The CLI parsed in-process (no action runs): configuration precedence, --print-config, help,
 * --version and bad input to every flag. Real processes and exit codes: test/e2e/cli-commands.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Command } from "commander";
import { keyOf } from "../../../cli/config.js";
import { buildProgram, describeFailure, VERSION } from "../../../cli/program.js";

interface Outcome {
  exitCode: number;
  out: string;
  err: string;
}

/** Parses `args` as `seedswarm <args>` with the given variables; returns the exit code and output. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  let out = "";
  let err = "";
  const program = buildProgram({ env, writeOut: (s) => (out += s), writeErr: (s) => (err += s) });
  // Any action that would run is a test bug: every case ends in --print-config, --help or an error.
  for (const c of program.commands) c.action(() => assert.fail(`action of ${c.name()} ran`));
  try {
    await program.parseAsync(args, { from: "user" });
    return { exitCode: 0, out, err };
  } catch (e) {
    const { exitCode, message } = describeFailure(e);
    return { exitCode, out, err: err + (message ?? "") };
  }
}

type Printed = { command: string; config: Record<string, unknown>; sources: Record<string, string> };
const printed = (o: Outcome): Printed => JSON.parse(o.out) as Printed;

const PEER_A = "/ip4/10.0.0.1/tcp/4001/p2p/12D3KooWDDLfFFPgkyqTV1TVpvbVARJpF7pY3PxEfKxG9WnKYmzs";
const PEER_B = "/dns4/boot.example/tcp/4001/p2p/12D3KooWDDLfFFPgkyqTV1TVpvbVARJpF7pY3PxEfKxG9WnKYmzs";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "seedswarm-config-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function configFile(name: string, value: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

describe("configuration layers", () => {
  it("flag > environment variable > config file > default, and --print-config names each source", async () => {
    const file = await configFile("node.json", {
      listen: ["/ip4/127.0.0.1/tcp/4100", "/ip4/127.0.0.1/tcp/4101"],
      "check-every": 7,
      mdns: false,
      "data-dir": "/from/config",
      "join-wait": "1500",
      // A key of another command: ignored by `node`, so one file can serve several commands.
      nodes: 5,
      spec: null,
    });
    const r = await cli(["node", "--config", file, "--data-dir", "/from/flag", "--print-config"], {
      SEEDSWARM_CHECK_EVERY: "3",
      SEEDSWARM_BOOTSTRAP: `${PEER_A}, ${PEER_B}`,
      SEEDSWARM_DATA_DIR: "/from/env",
      SEEDSWARM_MIN_PEERS: "",
    });
    assert.equal(r.exitCode, 0, r.err);
    const p = printed(r);
    assert.equal(p.command, "node");
    assert.equal(p.config["data-dir"], "/from/flag");
    assert.equal(p.sources["data-dir"], "flag");
    assert.equal(p.config["check-every"], 3);
    assert.equal(p.sources["check-every"], "env SEEDSWARM_CHECK_EVERY");
    assert.deepEqual(p.config.bootstrap, [PEER_A, PEER_B]);
    assert.deepEqual(p.config.listen, ["/ip4/127.0.0.1/tcp/4100", "/ip4/127.0.0.1/tcp/4101"]);
    assert.equal(p.sources.listen, `config ${file}`);
    assert.equal(p.config.mdns, false);
    assert.equal(p.config["join-wait"], 1500);
    // An empty variable is unset; the default stays.
    assert.equal(p.config["min-peers"], 0);
    assert.equal(p.sources["min-peers"], "default");
    assert.equal(p.config.backend, "auto");
    assert.equal(p.sources.backend, "default");
    assert.equal(p.config.spec, null);
    assert.equal(p.sources.spec, "unset");
    assert.equal("nodes" in p.config, false);
  });

  it("a flag repeated on the command line replaces the default list and the layers below", async () => {
    const file = await configFile("listen.json", { listen: "/ip4/127.0.0.1/tcp/4200" });
    const r = await cli(
      ["node", "--listen", "/ip4/127.0.0.1/tcp/1", "--listen", "/ip6/::1/tcp/2", "--print-config"],
      { SEEDSWARM_CONFIG: file, SEEDSWARM_LISTEN: "/ip4/127.0.0.1/tcp/3" },
    );
    assert.equal(r.exitCode, 0, r.err);
    assert.deepEqual(printed(r).config.listen, ["/ip4/127.0.0.1/tcp/1", "/ip6/::1/tcp/2"]);
    const viaEnvFile = await cli(["node", "--print-config"], { SEEDSWARM_CONFIG: file });
    assert.deepEqual(printed(viaEnvFile).config.listen, ["/ip4/127.0.0.1/tcp/4200"]);
    assert.equal(printed(viaEnvFile).sources.listen, `config ${file}`);
  });

  it("the peer store's cap: 2,048 by default, from the flag or SEEDSWARM_MAX_STORED_PEERS", async () => {
    assert.equal(printed(await cli(["node", "--print-config"])).config["max-stored-peers"], 2048);
    assert.equal(printed(await cli(["node", "--max-stored-peers", "500", "--print-config"])).config["max-stored-peers"], 500);
    const env = printed(await cli(["node", "--print-config"], { SEEDSWARM_MAX_STORED_PEERS: "64" }));
    assert.equal(env.config["max-stored-peers"], 64);
  });

  it("booleans from variables: true/false/1/0/yes/no, for plain and negated flags", async () => {
    for (const [raw, want] of [
      ["false", false],
      ["0", false],
      ["no", false],
      ["TRUE", true],
      ["1", true],
    ] as const) {
      const r = await cli(["node", "--print-config"], { SEEDSWARM_MDNS: raw });
      assert.equal(printed(r).config.mdns, want, raw);
    }
    const fresh = await cli(["train", "--print-config"], { SEEDSWARM_FRESH: "yes" });
    assert.equal(printed(fresh).config.fresh, true);
    // The flag wins over the variable.
    const flag = await cli(["node", "--no-mdns", "--print-config"], { SEEDSWARM_MDNS: "true" });
    assert.equal(printed(flag).config.mdns, false);
  });

  it("every option of every command has a variable and a config key (also flags added later)", async () => {
    const program = buildProgram();
    for (const cmd of program.commands) {
      // Required arguments (plot's files) get placeholders: only the options are printed.
      const args = cmd.registeredArguments.filter((a) => a.required).map(() => "placeholder");
      const r = await cli([cmd.name(), ...args, "--print-config"]);
      assert.equal(r.exitCode, 0, `${cmd.name()}: ${r.err}`);
      const keys = Object.keys(printed(r).config);
      const expected = cmd.options
        .filter((o) => o.long && !["--config", "--print-config"].includes(o.long))
        .map(keyOf);
      assert.deepEqual(keys.sort(), [...expected].sort(), cmd.name());
    }
    // A flag added after the fact is layered with no code of its own.
    const late = buildProgram({ env: { SEEDSWARM_LATE_FLAG: "127.0.0.1:9999" }, writeOut: () => {} });
    const node = late.commands.find((c) => c.name() === "node") as Command;
    node.option("--late-flag <addr>", "test-only flag");
    node.action((flags: { lateFlag: string }) => assert.equal(flags.lateFlag, "127.0.0.1:9999"));
    await late.parseAsync(["node"], { from: "user" });
  });

  it("warns about SEEDSWARM_* variables that no command knows (typos)", async () => {
    const r = await cli(["train", "--print-config"], { SEEDSWARM_BOOTSTRAPS: "x", SEEDSWARM_FAULT: "corrupt@3" });
    assert.equal(r.exitCode, 0);
    assert.match(r.err, /warning: SEEDSWARM_BOOTSTRAPS is not a seedswarm setting/);
    assert.doesNotMatch(r.err, /SEEDSWARM_FAULT/);
  });
});

describe("bad configuration: usage errors (exit 2) naming the file key or variable", () => {
  const cases: [string, () => Promise<Outcome>, RegExp][] = [
    [
      "unknown config key",
      async () => cli(["node", "--config", await configFile("typo.json", { lisen: "/ip4/1.2.3.4/tcp/1" }), "--print-config"]),
      /config file .*typo\.json: unknown key "lisen"/,
    ],
    [
      "config value of the wrong kind",
      async () => cli(["node", "--config", await configFile("kind.json", { mdns: "maybe" }), "--print-config"]),
      /config file .*kind\.json, key "mdns": expected true or false, got "maybe"/,
    ],
    [
      "config value the flag's parser rejects",
      async () => cli(["node", "--config", await configFile("listen-bad.json", { listen: ["/ip4/1.2.3/tcp/1"] }), "--print-config"]),
      /key "listen": not a multiaddr: "\/ip4\/1\.2\.3\/tcp\/1"/,
    ],
    [
      "config file that is not JSON",
      async () => cli(["train", "--config", await configFile("broken.json", "{ listen: "), "--print-config"]),
      /config file .*broken\.json: not JSON/,
    ],
    [
      "config file that is a list",
      async () => cli(["train", "--config", await configFile("list.json", [1]), "--print-config"]),
      /expected a JSON object of settings/,
    ],
    [
      "config file that does not exist",
      async () => cli(["train", "--config", join(dir, "missing.json"), "--print-config"]),
      /config file .*missing\.json: cannot read it \(ENOENT\)/,
    ],
    [
      "--print-config inside a config file",
      async () => cli(["train", "--config", await configFile("meta.json", { "print-config": true })]),
      /"print-config" cannot be set in a config file/,
    ],
    [
      "bad integer in a variable",
      () => cli(["node", "--print-config"], { SEEDSWARM_CHECK_EVERY: "ten" }),
      /environment variable SEEDSWARM_CHECK_EVERY: expected an integer from 1 to 1000000, got "ten"/,
    ],
    [
      "bad multiaddr in a comma list",
      () => cli(["node", "--print-config"], { SEEDSWARM_BOOTSTRAP: `${PEER_A},/ip4/10.0.0.2/tcp/4001` }),
      /environment variable SEEDSWARM_BOOTSTRAP: "\/ip4\/10\.0\.0\.2\/tcp\/4001" does not end in \/p2p\/<peer id>/,
    ],
    [
      "unknown preset in a variable",
      () => cli(["train", "--print-config"], { SEEDSWARM_PRESET: "huge" }),
      /environment variable SEEDSWARM_PRESET: Allowed choices are mnist-mlp-spsa, .*tiny-spsa-lowrank, .*tiny-lm, tiny-lm-lowrank, lm-demo-spam, lm-demo-email\./,
    ],
    [
      "bad boolean in a variable",
      () => cli(["node", "--print-config"], { SEEDSWARM_MDNS: "sometimes" }),
      /environment variable SEEDSWARM_MDNS: expected true or false, got "sometimes"/,
    ],
  ];
  for (const [name, run, message] of cases) {
    it(name, async () => {
      const r = await run();
      assert.equal(r.exitCode, 2, r.err);
      assert.match(r.err, message);
      assert.equal(r.out, "", "prints no configuration");
    });
  }
});

describe("bad flags: usage errors (exit 2) naming the flag and the value", () => {
  const P = "12D3KooWDDLfFFPgkyqTV1TVpvbVARJpF7pY3PxEfKxG9WnKYmzs";
  const cases: [string[], RegExp][] = [
    [["node", "--listen", "/ip4/1.2.3/tcp/1"], /'--listen <multiaddr>' argument '\/ip4\/1\.2\.3\/tcp\/1' is invalid\. not a multiaddr/],
    [["node", "--listen", "/ip4/127.0.0.1/udp/1"], /--listen.*has no \/tcp\/<port> part/],
    [["node", "--announce", "nonsense"], /--announce.*not a multiaddr/],
    [["node", "--bootstrap", "/ip4/10.0.0.1/tcp/4001"], /--bootstrap.*does not end in \/p2p\/<peer id>/],
    [["node", "--bootstrap", "/ip4/10.0.0.1/tcp/4001/p2p/QmNotAPeer"], /--bootstrap.*(not a peer id|not a multiaddr)/],
    [["node", "--preset", "nope"], /'--preset <name>' argument 'nope' is invalid\. Allowed choices/],
    [["node", "--backend", "tpu"], /'--backend <name>' argument 'tpu' is invalid/],
    [["node", "--check-every", "0"], /'--check-every <n>' argument '0' is invalid\. expected an integer from 1/],
    [["node", "--checkpoint-every", "often"], /--checkpoint-every.*'often'/],
    [["node", "--join-wait", "-5"], /--join-wait.*'-5'/],
    [["node", "--min-peers", "1.5"], /--min-peers.*'1\.5'/],
    [["node", "--leave-deadline", "50"], /--leave-deadline.*from 100/],
    [["node", "--stop-at", "x"], /--stop-at.*'x'/],
    [["node", "--iterations", "0"], /--iterations.*'0'/],
    [["node", "--preemption-watch", "azure"], /'--preemption-watch <cloud>' argument 'azure' is invalid\. Allowed choices are none, aws, gcp/],
    [["node", "--metadata-url", "ftp://imds"], /--metadata-url.*expected an http:\/\/ or https:\/\/ URL/],
    [["node", "--metadata-url", "not a url"], /--metadata-url.*not a URL/],
    [["node", "--preemption-poll", "10"], /--preemption-poll.*from 100/],
    [["node", "--log-level", "loud"], /--log-level.*'loud'/],
    [["node", "--frobnicate"], /unknown option '--frobnicate'/],
    [["train", "--authors", "zero"], /--authors.*'zero'/],
    [["train", "--eval-every", "-1"], /--eval-every/],
    [["train", "--eval-limit", "0"], /--eval-limit/],
    [["node", "--eval-limit", "0"], /--eval-limit/],
    [["swarm", "--eval-limit", "0"], /--eval-limit/],
    [["swarm", "--nodes", "65"], /--nodes.*from 1 to 64/],
    [["swarm", "--node-backends", "wasm,gpu"], /--node-backends.*unknown backend\(s\) gpu/],
    [["init", "--preset", "giant"], /--preset.*'giant'/],
    [["init", "--iterations", "many"], /--iterations.*'many'/],
    [["init", "--member", "12D3KooWnope"], /--member.*is not a peer id/],
    [["node", "--member", P.toLowerCase()], /--member.*(is not a peer id|must be written as)/],
    [["node", "--run", "ab".repeat(32), "--member", P], /--run.*cannot be used with.*--member/],
    [["node", "--max-connections-per-ip", "-1"], /--max-connections-per-ip.*'-1'/],
    [["node", "--max-stored-peers", "8"], /--max-stored-peers.*'8'/],
    [["eval", "--limit", "0"], /--limit.*'0'/],
    [["eval", "--backend", "gpu"], /--backend.*'gpu'/],
    [["export", "--preset", "nope"], /--preset.*'nope'/],
    [["nodes"], /unknown command 'nodes'/],
    [["id", "--create", "yes"], /too many arguments|unknown/],
  ];
  for (const [args, message] of cases) {
    it(args.join(" "), async () => {
      const r = await cli(args);
      assert.equal(r.exitCode, 2, r.err);
      assert.match(r.err, /✖ /);
      assert.match(r.err, message);
    });
  }
  it("a backend per swarm node from --node-backends", async () => {
    const r = await cli(["swarm", "--node-backends", "wasm, wasm,cpu", "--print-config"]);
    assert.equal(r.exitCode, 0, r.err);
    assert.deepEqual(printed(r).config["node-backends"], ["wasm", "wasm", "cpu"]);
  });

  it("an evaluation subset size for a node (default 1,000) and for every node of a swarm", async () => {
    const node = await cli(["node", "--print-config"]);
    assert.equal(node.exitCode, 0, node.err);
    assert.equal(printed(node).config["eval-limit"], 1000);
    const swarm = await cli(["swarm", "--eval-limit", "10000", "--print-config"]);
    assert.equal(swarm.exitCode, 0, swarm.err);
    assert.equal(printed(swarm).config["eval-limit"], 10000);
  });

  it("members from a comma list in SEEDSWARM_MEMBER, a swarm key path from SEEDSWARM_SWARM_KEY", async () => {
    const r = await cli(["node", "--print-config"], { SEEDSWARM_MEMBER: `${P},${P}`, SEEDSWARM_SWARM_KEY: "/secrets/swarm.key" });
    assert.equal(r.exitCode, 0, r.err);
    const { config, sources } = printed(r);
    assert.deepEqual(config.member, [P, P]);
    // The path, never the key: --print-config output may end up in logs.
    assert.equal(config["swarm-key"], "/secrets/swarm.key");
    assert.equal(sources.member, "env SEEDSWARM_MEMBER");
  });

  it("a bootstrap peer id is checked, not just the multiaddr", async () => {
    const ok = await cli(["node", "--bootstrap", `/ip4/10.0.0.1/tcp/4001/p2p/${P}`, "--print-config"]);
    assert.equal(ok.exitCode, 0, ok.err);
  });
});

describe("help and version", () => {
  it("--version prints package.json's version", async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "..", "..", "package.json"), "utf8"));
    const r = await cli(["--version"]);
    assert.equal(r.exitCode, 0);
    assert.equal(r.out.trim(), pkg.version);
    assert.equal(VERSION, pkg.version);
  });

  it("every command has --help with examples and its variables", async () => {
    const names = buildProgram().commands.map((c) => c.name());
    assert.deepEqual(names.sort(), ["demo", "eval", "export", "id", "init", "node", "plot", "status", "swarm", "swarm-key", "train"]);
    for (const name of names) {
      const r = await cli([name, "--help"]);
      assert.equal(r.exitCode, 0, name);
      assert.match(r.out, new RegExp(`Usage: seedswarm ${name}`));
      assert.match(r.out, /Examples:\n {2}\$ seedswarm /, `${name} has examples`);
      assert.match(r.out, /precedence: flag > environment variable > config file > default/);
      assert.match(r.out, /--print-config/);
    }
    const node = await cli(["node", "--help"]);
    for (const v of [
      "SEEDSWARM_LISTEN",
      "SEEDSWARM_BOOTSTRAP",
      "SEEDSWARM_DATA_DIR",
      "SEEDSWARM_PREEMPTION_WATCH",
      "SEEDSWARM_SWARM_KEY",
      "SEEDSWARM_MEMBER",
      "SEEDSWARM_MAX_CONNECTIONS_PER_IP",
    ]) {
      assert.match(node.out, new RegExp(v));
    }
  });
});
