/**
 * Build step (`npm run build`, after tsc): compiles bit-kernel.wat to bit-kernel.wasm beside the
 * compiled wasm-kernel.js, with the SIMD feature on. The text is the source; the binary is build
 * output, never committed.
 *   node dist/training/bit-kernel/build.js
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import wabtInit from "wabt";
const here = fileURLToPath(new URL(".", import.meta.url));
const source = fileURLToPath(new URL("../../../training/bit-kernel/bit-kernel.wat", import.meta.url));
const wabt = await wabtInit();
const parsed = wabt.parseWat("bit-kernel.wat", readFileSync(source, "utf8"), { simd: true });
parsed.validate();
const { buffer } = parsed.toBinary({});
writeFileSync(`${here}bit-kernel.wasm`, buffer);
parsed.destroy();
//# sourceMappingURL=build.js.map