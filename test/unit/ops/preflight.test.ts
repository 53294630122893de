import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import "../../../node/ground/polyfills.js";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { pino } from "pino";
import { createSwarmNode, defaultNetworkOptions } from "../../../node/network/libp2p.js";
import {
  checkListenAddrs,
  checkNewFile,
  checkWritableDir,
  explainStartError,
  PreflightError,
} from "../../../node/ops/preflight.js";

describe("preflight checks", () => {
  let server: Server;
  let port: number;
  let dir: string;
  before(async () => {
    server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
    dir = await mkdtemp(join(tmpdir(), "seedswarm-preflight-"));
  });
  after(async () => {
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("listen ports: a used port is named, port 0 and free ports pass", async () => {
    await checkListenAddrs(["/ip4/127.0.0.1/tcp/0", "/ip6/::1/tcp/0"]);
    await assert.rejects(
      checkListenAddrs([`/ip4/127.0.0.1/tcp/${port}`]),
      (e: PreflightError) => e.code === "PORT_IN_USE" && e.message.startsWith(`port ${port} is in use`),
    );
  });

  it("libp2p's own listen failure (the race after the check) becomes the same message", async () => {
    const listen = [`/ip4/127.0.0.1/tcp/${port}`];
    const err = await createSwarmNode(
      { ...defaultNetworkOptions, mdns: false, listen },
      await generateKeyPair("Ed25519"),
      pino({ level: "silent" }),
    ).then(
      () => assert.fail("libp2p listened on a used port"),
      (e: unknown) => e,
    );
    const explained = explainStartError(err, listen) as PreflightError;
    assert.equal(explained.code, "PORT_IN_USE");
    assert.equal(explained.message, `port ${port} is in use (listen address ${listen[0]})`);
    const other = new Error("something else");
    assert.equal(explainStartError(other, listen), other);
  });

  it("directories and files: existing, creatable, under a file, in the way", async () => {
    await checkWritableDir(dir, "data dir");
    await checkWritableDir(join(dir, "a", "b", "c"), "data dir");
    const file = join(dir, "f");
    await writeFile(file, "x");
    await assert.rejects(checkWritableDir(file, "data dir"), /data dir .*f: is not a directory/);
    await assert.rejects(checkWritableDir(join(file, "x"), "data dir"), /f is not a directory/);
    await assert.rejects(checkNewFile(file, false, "spec"), /spec .*f exists \(--force overwrites it\)/);
    await checkNewFile(file, true, "spec");
    await assert.rejects(checkNewFile(dir, true, "spec"), /is a directory/);
  });
});
