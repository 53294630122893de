/** The flags that choose a run spec and a data directory, shared by the commands. */
import { readFileSync } from "node:fs";
import { Option } from "commander";
import { defaultOptions } from "../node/options.js";
import { DEFAULT_PRESET, isPresetName, PRESETS } from "../protocol/presets.js";
import { parseRunSpec, parseRunSpecJson, withIterations, withMembers, } from "../protocol/run-spec.js";
import { repeatable } from "./config.js";
import { intIn, peerId } from "./parse.js";
/** A fresh Option per command: commander keeps per-command state on options. */
export const presetOption = () => new Option("--preset <name>", "built-in run spec").choices(Object.keys(PRESETS)).default(DEFAULT_PRESET);
export const specOption = () => new Option("--spec <file>", "run spec JSON file (overrides --preset)");
export const iterationsOption = () => new Option("--iterations <n>", "run length; changes the run spec, so it is a different run").argParser(intIn(1, 1e9));
/** A member run (docs/security.md, "Membership modes"): the spec lists who may take part. */
export const memberOption = () => repeatable(new Option("--member <peerId>", "make it a member run: only these peer ids take part (repeatable; replaces the spec's list; a different run)"), peerId);
/** Default data directory (~/.seedswarm); SEEDSWARM_DATA_DIR sets it like any flag's variable. */
export function defaultDataDir() {
    return defaultOptions.dataDir;
}
/** The RunSpec from --spec FILE or --preset NAME, with --iterations and --member applied (each a new run). */
export function resolveSpec(o) {
    let spec;
    if (o.spec) {
        let text;
        try {
            text = readFileSync(o.spec, "utf8");
        }
        catch (err) {
            throw new Error(`cannot read run spec ${o.spec}: ${err.code ?? err.message}`);
        }
        spec = parseRunSpecJson(text, o.spec);
    }
    else {
        if (!isPresetName(o.preset)) {
            throw new Error(`unknown preset "${o.preset}"; choose one of ${Object.keys(PRESETS).join(", ")}`);
        }
        spec = parseRunSpec(PRESETS[o.preset]);
    }
    if (o.iterations !== undefined)
        spec = withIterations(spec, o.iterations);
    return o.member === undefined || o.member.length === 0 ? spec : withMembers(spec, o.member);
}
//# sourceMappingURL=spec-options.js.map