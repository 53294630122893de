/**
 * The adversary benchmarks of issue 44 beyond admission (bench/adversary.ts), one section each,
 * each from the measurement its file holds (each file also runs alone: `node dist/bench/<file>.js`).
 */
import { dhtFloodFigures } from "./adversary-dht.js";
import { genesisFigures } from "./adversary-genesis.js";
import { inboxFigures } from "./adversary-inbox.js";
import { pausedReadersFigures } from "./adversary-readers.js";
import { verifyFloodFigures } from "./adversary-verify.js";
import type { Section } from "./report.js";

type Measure = () => Promise<{ figures: Record<string, number>; markdown: string }>;

const section = (id: string, title: string, measure: Measure) => async (): Promise<Section> => {
  const { figures, markdown } = await measure();
  return { id, title, command: `node dist/bench/run.js --only ${id}`, markdown, figures };
};

export const adversarySections: Record<string, () => Promise<Section>> = {
  "adversary-readers": section("adversary-readers", "Adversaries: peers that never read (finding 3)", pausedReadersFigures),
  "adversary-inbox": section("adversary-inbox", "Adversaries: the round inbox under a flood from free identities (finding 4)", inboxFigures),
  "adversary-verify": section("adversary-verify", "Adversaries: signature checks as an amplifier (finding 5)", verifyFloodFigures),
  "adversary-dht": section("adversary-dht", "Adversaries: DHT record floods and poisoned expert records (finding 6)", dhtFloodFigures),
  "adversary-genesis": section("adversary-genesis", "Adversaries: a ground genesis fork (finding 7)", genesisFigures),
};
