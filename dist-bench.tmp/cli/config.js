/**
 * Configuration layers for every command, implemented once over commander's option table, so a
 * flag added to any command later is covered with no extra code.
 *
 * Precedence (highest first): command-line flag > `SEEDSWARM_*` environment variable > config
 * file (`--config <file>` or `SEEDSWARM_CONFIG`) > the default beside the code (node/options.ts).
 *
 * - A setting's key is its long flag without `--` (`--data-dir` -> `data-dir`; a negated flag
 *   `--no-mdns` -> `mdns`, value false). Its variable is `SEEDSWARM_` + the key in upper case with
 *   `_` for `-` (`SEEDSWARM_DATA_DIR`, `SEEDSWARM_MDNS=false`).
 * - Values pass through the flag's own parser, so a bad value fails exactly as on the command line,
 *   with the variable or file key named. Repeatable flags take a comma-separated list in a variable
 *   and a JSON array (or comma-separated string) in a file. Booleans: `true/false/1/0/yes/no`.
 * - Config files hold one flat JSON object. Keys of another command's flags are ignored (one file
 *   can serve `node`, `eval` and `export`); a key that is no flag of any command is an error; a
 *   null value means unset. Variables are ignored by commands without that flag; a `SEEDSWARM_*`
 *   variable that no command knows gets a warning (a typo would otherwise be silent).
 * - `--print-config` prints the effective settings and where each came from, then exits 0.
 */
import { readFileSync } from "node:fs";
import { CommanderError, Option } from "commander";
import { SeedswarmError } from "../protocol/errors.js";
export const ENV_PREFIX = "SEEDSWARM_";
/** Variables that are not flags: the config file itself and test hooks read elsewhere. */
const OTHER_VARIABLES = new Set(["SEEDSWARM_CONFIG", "SEEDSWARM_FAULT", "SEEDSWARM_TEST_KEEP", "SEEDSWARM_UPDATE_KERNELS"]);
/** Flags about configuration itself: never read from a file or a variable. */
const META = new Set(["config", "print-config", "help", "version"]);
/** A bad config file, key or variable; the message names it. Exit code 2 (usage). */
export class ConfigError extends SeedswarmError {
}
const repeatables = new WeakSet();
/**
 * Makes `opt` repeatable: each use appends `parseOne(raw)`; the first use replaces the default.
 * Variables split such a flag on commas.
 */
export function repeatable(opt, parseOne) {
    repeatables.add(opt);
    return opt.argParser((raw, prev) => [
        ...(Array.isArray(prev) && prev !== opt.defaultValue ? prev : []),
        parseOne(raw),
    ]);
}
/** The setting key of an option: its long flag without `--` (and without `no-` when negated). */
export function keyOf(opt) {
    return opt.attributeName().replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
/** The environment variable of a setting key. */
export function envOf(key) {
    return ENV_PREFIX + key.toUpperCase().replace(/-/g, "_");
}
const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);
/** Parses one layered value through the flag's own parser; `where` names its origin. */
function parseValue(opt, raw, where) {
    const fail = (problem) => {
        throw new ConfigError("CONFIG_INVALID", `${where}: ${problem}`, { where });
    };
    if (opt.isBoolean() || opt.negate) {
        if (typeof raw === "boolean")
            return raw;
        const s = String(raw).trim().toLowerCase();
        if (TRUE.has(s))
            return true;
        if (FALSE.has(s))
            return false;
        return fail(`expected true or false, got ${JSON.stringify(raw)}`);
    }
    const one = (value, prev) => {
        if (typeof value !== "string" && typeof value !== "number") {
            return fail(`expected a string or a number, got ${JSON.stringify(value)}`);
        }
        const s = String(value);
        if (!opt.parseArg)
            return s;
        try {
            return opt.parseArg(s, prev);
        }
        catch (err) {
            return fail(err.message);
        }
    };
    if (repeatables.has(opt)) {
        const items = Array.isArray(raw)
            ? raw
            : typeof raw === "string"
                ? raw.split(",").map((s) => s.trim()).filter((s) => s !== "")
                : fail(`expected a list, got ${JSON.stringify(raw)}`);
        return items.reduce((acc, item) => one(item, acc), []);
    }
    return one(raw, undefined);
}
/** The options of a command that configuration layers apply to. */
function layered(cmd) {
    return cmd.options.filter((o) => o.long !== undefined && !META.has(keyOf(o)));
}
/** Reads a config file: one flat JSON object. */
function readConfigFile(path) {
    let text;
    try {
        text = readFileSync(path, "utf8");
    }
    catch (err) {
        throw new ConfigError("CONFIG_INVALID", `config file ${path}: cannot read it (${err.code ?? err.message})`, { path });
    }
    let value;
    try {
        value = JSON.parse(text);
    }
    catch (err) {
        throw new ConfigError("CONFIG_INVALID", `config file ${path}: not JSON (${err.message})`, { path });
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
        throw new ConfigError("CONFIG_INVALID", `config file ${path}: expected a JSON object of settings`, { path });
    }
    return value;
}
/** The command's output streams (commander's; tests replace them). */
const out = (cmd) => cmd.configureOutput();
/**
 * Fills a parsed command's options from variables and the config file wherever no flag set them.
 * Runs as commander's preAction hook; `root` is the program (to know every command's keys).
 *
 * @throws ConfigError naming the file key or variable with a bad value, or an unknown key.
 */
export function applyConfig(cmd, root, env = process.env) {
    const allKeys = new Set(root.commands.flatMap((c) => layered(c).map(keyOf)));
    for (const name of Object.keys(env)) {
        if (!name.startsWith(ENV_PREFIX) || OTHER_VARIABLES.has(name))
            continue;
        if (![...allKeys].some((k) => envOf(k) === name)) {
            out(cmd).writeErr?.(`warning: ${name} is not a seedswarm setting (ignored)\n`);
        }
    }
    const configPath = cmd.getOptionValue("config") ?? env.SEEDSWARM_CONFIG;
    const file = configPath === undefined || configPath === "" ? {} : readConfigFile(configPath);
    for (const key of Object.keys(file)) {
        if (META.has(key)) {
            throw new ConfigError("CONFIG_INVALID", `config file ${configPath}: "${key}" cannot be set in a config file`, {
                path: configPath,
                key,
            });
        }
        if (!allKeys.has(key)) {
            throw new ConfigError("CONFIG_INVALID", `config file ${configPath}: unknown key "${key}" (keys are flag names without "--", e.g. "data-dir")`, { path: configPath, key });
        }
    }
    const origins = {};
    for (const opt of layered(cmd)) {
        const attr = opt.attributeName();
        const key = keyOf(opt);
        const source = cmd.getOptionValueSource(attr);
        if (source === "cli") {
            origins[key] = "flag";
            continue;
        }
        const variable = envOf(key);
        if (env[variable] !== undefined && env[variable] !== "") {
            const where = `environment variable ${variable}`;
            cmd.setOptionValueWithSource(attr, parseValue(opt, env[variable], where), "env");
            origins[key] = `env ${variable}`;
        }
        else if (file[key] !== undefined && file[key] !== null) {
            const where = `config file ${configPath}, key "${key}"`;
            cmd.setOptionValueWithSource(attr, parseValue(opt, file[key], where), "config");
            origins[key] = `config ${configPath}`;
        }
        else {
            origins[key] = source === "default" ? "default" : "unset";
        }
    }
    if (cmd.getOptionValue("printConfig")) {
        const values = {};
        for (const opt of layered(cmd))
            values[keyOf(opt)] = cmd.getOptionValue(opt.attributeName()) ?? null;
        out(cmd).writeOut?.(`${JSON.stringify({ command: cmd.name(), config: values, sources: origins }, null, 2)}\n`);
        // Ends the run before the action, through the one exit path (code 0).
        throw new CommanderError(0, "seedswarm.printConfig", "printed the configuration");
    }
}
/**
 * Adds `--config` and `--print-config` to every subcommand, lists each command's variables in its
 * help, and installs the layering as a preAction hook. Call once, after every command is defined.
 */
export function installConfig(root, env = process.env) {
    for (const cmd of root.commands) {
        cmd.addOption(new Option("--config <file>", "JSON file of settings (keys: flag names without --); env SEEDSWARM_CONFIG"));
        cmd.addOption(new Option("--print-config", "print the effective settings and their sources as JSON, then exit"));
        cmd.addHelpText("after", () => {
            const lines = [];
            for (const v of layered(cmd).map((o) => envOf(keyOf(o)))) {
                const last = lines.length - 1;
                if (last >= 0 && lines[last].length + v.length < 88)
                    lines[last] += ` ${v}`;
                else
                    lines.push(`  ${v}`);
            }
            return `\nEvery flag can also be set by a variable or a --config file key (flag names without --);
precedence: flag > environment variable > config file > default. Variables:\n${lines.join("\n")}`;
        });
    }
    root.hook("preAction", (_root, action) => applyConfig(action, root, env));
}
//# sourceMappingURL=config.js.map