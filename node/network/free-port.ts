/**
 * Free TCP ports on 127.0.0.1 for processes that must name their port before they start (the
 * local swarm's first node; tests).
 *
 * Ports come from below Linux's ephemeral range (32768-60999 by default): a port the kernel hands
 * out for `listen(0)` is also one it may hand to the next outbound connection, so a node dialling
 * a peer could take the port another node was about to listen on (CI saw `--http ... port in use`).
 * Each port is checked free on 127.0.0.1 and none is handed out twice in one process.
 */
import { randomInt } from "node:crypto";
import { createServer } from "node:net";

const given = new Set<number>();
const LOW = 20000;
const HIGH = 32000;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 1000; tries++) {
    // Which port is not replicated state: the CSPRNG, not the run's seeded streams.
    const port = randomInt(LOW, HIGH);
    if (given.has(port)) continue;
    if (await isFree(port)) {
      given.add(port);
      return port;
    }
  }
  throw new Error(`no free TCP port in ${LOW}-${HIGH} on 127.0.0.1 after 1000 tries`);
}
