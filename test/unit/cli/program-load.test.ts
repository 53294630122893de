/**
 * What loading the command line costs: `seedswarm --version`, `--help`, `id` or `status` build the
 * whole program, so its modules must not pull in the training code behind the defaults they show.
 * TensorFlow.js alone took about 120 ms of a 0.56 s `--version` (0.35 to 0.45 s without it).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const PROGRAM = fileURLToPath(new URL("../../../cli/program.js", import.meta.url));

/** The CommonJS modules (package files) a fresh process has loaded after importing `module`. */
function loadedBy(module: string): Promise<string[]> {
  // A child process: this test runner may have loaded anything already. tfjs-core's Node build
  // is CommonJS, so it shows in the require cache even when imported from ESM.
  const script = `import { createRequire } from "node:module";
await import(${JSON.stringify(module)});
console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ["--input-type=module", "-e", script], (err, stdout, stderr) => (err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(JSON.parse(stdout) as string[]))),
  );
}

describe("loading the command line", () => {
  it("builds every command without loading TensorFlow.js", async () => {
    const loaded = await loadedBy(PROGRAM);
    assert.ok(loaded.length > 0, "the child reported its loaded modules");
    assert.deepEqual(
      loaded.filter((m) => m.includes("@tensorflow")),
      [],
      "cli/program.js reaches TensorFlow.js through a static import (a default that lives beside training code?)",
    );
  });

  it("the check sees TensorFlow.js where it is loaded", async () => {
    // The same probe on a module that does load it: the assertion above can fail.
    const loaded = await loadedBy(fileURLToPath(new URL("../../../training/params.js", import.meta.url)));
    assert.ok(loaded.some((m) => m.includes("@tensorflow/tfjs-core")), `training/params.js loaded ${loaded.length} CommonJS modules, none of tfjs-core`);
  });
});
