/**
 * A private swarm (`--swarm-key`, docs/security.md "Membership modes") with real processes over
 * TCP: `seedswarm swarm-key` writes the key, two nodes given it connect and train; a libp2p node
 * without it, or with another key, cannot connect to them. Bad key files fail the CLI naming the file.
 */
import "../../node/ground/polyfills.js";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "./cli-process.js";
import { cleanup, startSwarm, tempDir } from "./node-process.js";

after(cleanup);


describe("private swarm key", () => {
  it("nodes with the key train together; without it, or with another key, a peer cannot connect", async () => {
    const dir = await tempDir();
    const keyFile = join(dir, "swarm.key");
    const made = await runCli(["swarm-key", "-o", keyFile]);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600, "readable by its owner only");
    assert.equal((await runCli(["swarm-key", "-o", keyFile])).code, 1, "no silent overwrite");
    const otherFile = join(dir, "other.key");
    assert.equal((await runCli(["swarm-key", "-o", otherFile])).code, 0);

    const trained = 30;
    // By variable, as a deployment would set it (the flag is the failure test's). A long run,
    // stopped by the test: the nodes must still listen while the strangers dial them (a quiet
    // machine ends the preset's 200 iterations in seconds, before the dials are done).
    const nodes = await startSwarm(2, ["--iterations", "100000", "--stop-at", "100000"], [{ SEEDSWARM_SWARM_KEY: keyFile }, { SEEDSWARM_SWARM_KEY: keyFile }]);
    const addr = await nodes[0].address();

    // Each stranger dials from its own process (test/e2e/dial-probe.ts).
    const probe = (key?: string) => {
      const r = spawnSync(process.execPath, [join(import.meta.dirname, "dial-probe.js"), addr, ...(key ? [key] : [])], {
        encoding: "utf8",
        timeout: 30_000,
      });
      const line = r.stdout.trim().split("\n").pop() ?? "";
      assert.ok(line.startsWith("{"), `probe printed no result (exit ${r.status}): ${r.stderr.slice(-500)}`);
      return JSON.parse(line) as { connected: boolean; open?: number; remotePeer?: string };
    };
    for (const [who, key] of [["no key", undefined], ["another key", otherFile]] as const) {
      const r = probe(key);
      assert.equal(r.connected, false, `a node with ${who} connected`);
      assert.equal(r.open, 0, `a node with ${who} holds no connection`);
    }
    // The same key from another process's view connects: the refusals above are the key's doing.
    const friend = probe(keyFile);
    assert.equal(friend.connected, true, `a node with the key connects: ${JSON.stringify(friend)}`);
    assert.equal(friend.remotePeer, addr.split("/p2p/")[1]);

    for (const n of nodes) await n.waitFor((l) => l.msg === "applied" && (l.iteration ?? 0) >= trained, 60_000, `iteration ${trained}`);
    for (const n of nodes) n.child.kill("SIGTERM");
    const exits = await Promise.all(nodes.map((n) => n.exit));
    for (const e of exits) assert.equal(e.code, 0);
    const [ca, cb] = nodes.map((n) => n.checksums());
    assert.ok(ca.get(trained), `node 1 applied ${trained}`);
    assert.equal(ca.get(trained), cb.get(trained), `same checksum at ${trained}`);
    // They trained together: commits carry both authors.
    assert.ok(nodes[0].commits().some((c) => c.entries.length === 2), "both nodes contributed");
  });

  it("a missing key file exits 1 and a malformed one 2, each naming the file", async () => {
    const dir = await tempDir();
    const missing = join(dir, "nope.key");
    const bad = join(dir, "bad.key");
    writeFileSync(bad, "/key/swarm/psk/1.0.0/\n/base64/\nabc\n");
    const args = ["node", "--no-mdns", "--data-dir", dir, "--listen", "/ip4/127.0.0.1/tcp/0"];
    const a = await runCli([...args, "--swarm-key", missing]);
    assert.equal(a.code, 1, a.stderr);
    assert.match(a.stderr, /SWARM_KEY_MISSING/);
    assert.ok(a.stderr.includes(missing));
    const b = await runCli(args, { env: { SEEDSWARM_SWARM_KEY: bad } });
    assert.equal(b.code, 2, b.stderr);
    assert.match(b.stderr, /SWARM_KEY_MALFORMED/);
    assert.ok(b.stderr.includes(bad));
    assert.match(b.stderr, /second line must be \/base16\//);
  });
});
