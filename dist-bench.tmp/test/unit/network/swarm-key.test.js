/** The swarm key file: written 0600 by writeSwarmKey, read back only in the exact format pnet expects. */
import assert from "node:assert/strict";
import { statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readSwarmKey, SwarmKeyError, writeSwarmKey } from "../../../node/network/swarm-key.js";
let dir;
before(async () => {
    dir = await mkdtemp(join(tmpdir(), "seedswarm-swarm-key-"));
});
after(async () => {
    await rm(dir, { recursive: true, force: true });
});
const HEX = "0123456789abcdef".repeat(4);
/** Asserts that reading a file holding `text` fails with `code`, naming the file. */
async function refuses(text, code, why) {
    const path = join(dir, `k-${Math.random().toString(36).slice(2)}.key`);
    writeFileSync(path, text);
    await assert.rejects(readSwarmKey(path), (err) => {
        assert.ok(err instanceof SwarmKeyError);
        assert.equal(err.code, code);
        assert.ok(err.message.includes(path), err.message);
        assert.match(err.message, why);
        return true;
    });
}
describe("swarm key file", () => {
    it("writeSwarmKey makes a fresh 0600 key each time that readSwarmKey accepts", async () => {
        const [a, b] = [join(dir, "a.key"), join(dir, "b.key")];
        await writeSwarmKey(a, false);
        await writeSwarmKey(b, false);
        assert.equal(statSync(a).mode & 0o777, 0o600);
        const [ka, kb] = [await readSwarmKey(a), await readSwarmKey(b)];
        assert.match(new TextDecoder().decode(ka), /^\/key\/swarm\/psk\/1\.0\.0\/\n\/base16\/\n[0-9a-f]{64}$/);
        assert.notDeepEqual(ka, kb);
        await assert.rejects(writeSwarmKey(a, false), /exists/);
        await writeSwarmKey(a, true);
        assert.notDeepEqual(await readSwarmKey(a), ka);
    });
    it("accepts CRLF and surrounding whitespace, read as the canonical three lines", async () => {
        const path = join(dir, "crlf.key");
        writeFileSync(path, `/key/swarm/psk/1.0.0/\r\n/base16/\r\n${HEX}\r\n\r\n`);
        assert.equal(new TextDecoder().decode(await readSwarmKey(path)), `/key/swarm/psk/1.0.0/\n/base16/\n${HEX}`);
    });
    it("refuses a missing file and every malformed form, naming the file", async () => {
        await assert.rejects(readSwarmKey(join(dir, "none.key")), (err) => err instanceof SwarmKeyError && err.code === "SWARM_KEY_MISSING");
        await refuses("", "SWARM_KEY_MALFORMED", /3 lines/);
        await refuses(`/key/swarm/psk/2.0.0/\n/base16/\n${HEX}\n`, "SWARM_KEY_MALFORMED", /first line/);
        await refuses(`/key/swarm/psk/1.0.0/\n/base64/\n${HEX}\n`, "SWARM_KEY_MALFORMED", /second line/);
        await refuses(`/key/swarm/psk/1.0.0/\n/base16/\n${HEX.slice(2)}\n`, "SWARM_KEY_MALFORMED", /64 lowercase hex/);
        await refuses(`/key/swarm/psk/1.0.0/\n/base16/\n${HEX.toUpperCase()}\n`, "SWARM_KEY_MALFORMED", /64 lowercase hex/);
        await refuses("x".repeat(5000), "SWARM_KEY_MALFORMED", /5000 bytes/);
    });
});
//# sourceMappingURL=swarm-key.test.js.map