// Lint: ESLint with typescript-eslint (pure JavaScript: installs from the lock file on any
// platform, unlike linters that ship per-platform binaries as optional dependencies).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const NODE_WALL = { group: ["**/cli/**", "**/bench/**", "**/test/**"], message: "node/ is below the CLI and imports no tests or benchmarks" };
/** Each room of node/ and the rooms it may import; node.ts (the composition root) may import them all. */
const NODE_FLOORS = {
  ground: [],
  ops: ["ground"],
  observe: ["ground"],
  chain: ["ground", "observe"],
  store: ["ground", "ops", "observe", "chain"],
  network: ["ground", "ops", "observe", "chain", "store"],
  sync: ["ground", "ops", "observe", "chain", "store", "network"],
  local: ["ground", "ops", "observe", "chain", "store", "network"],
  offline: ["ground", "ops", "observe", "chain", "store"],
};
const NODE_ROOMS = Object.keys(NODE_FLOORS);

export default tseslint.config(
  { ignores: ["dist/**", "dist-bench.tmp/**", "node_modules/**", "protocol/messages.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", Buffer: "readonly", console: "readonly", setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly", setImmediate: "readonly", performance: "readonly", crypto: "readonly", AbortSignal: "readonly", AbortController: "readonly", URL: "readonly", TextEncoder: "readonly", TextDecoder: "readonly", NodeJS: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Library code logs through pino; only the CLI, benchmarks and tests write to the console.
      "no-console": "error",
      // Anything that must be reproduced draws from Philox, never Math.random.
      "no-restricted-properties": ["error", { object: "Math", property: "random", message: "use the Philox streams in training/rng" }],
    },
  },
  // The walls between rooms (docs/architecture.md, "Rooms"): data flows cli -> node -> (protocol, training).
  { files: ["protocol/**"], rules: { "no-restricted-imports": ["error", { patterns: [{ group: ["**/training/**", "**/node/**", "**/cli/**", "**/bench/**", "**/test/**"], message: "protocol/ is wire schemas and codecs: it imports no other room" }] }] } },
  { files: ["training/**"], rules: { "no-restricted-imports": ["error", { patterns: [{ group: ["**/node/**", "**/cli/**", "**/bench/**", "**/test/**", "@libp2p/*", "libp2p", "@chainsafe/*"], message: "training/ has no networking and never imports the daemon" }] }] } },
  { files: ["node/**"], rules: { "no-restricted-imports": ["error", { patterns: [NODE_WALL] }] } },
  // The floor plan of node/ (docs/architecture.md, "Floor plan"): a room imports only the rooms below it.
  ...Object.entries(NODE_FLOORS).map(([room, below]) => ({
    files: [`node/${room}/**`],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            NODE_WALL,
            { group: [...NODE_ROOMS.filter((r) => r !== room && !below.includes(r)).map((r) => `../${r}/*`), "../*.js"], message: `node/${room}/ imports only ${below.length > 0 ? below.join(", ") : "no other room of node/"} (the floor plan)` },
          ],
        },
      ],
    },
  })),
  { files: ["cli/**"], rules: { "no-restricted-imports": ["error", { patterns: [{ group: ["**/bench/**", "**/test/**"], message: "the CLI imports no tests or benchmarks" }] }] } },
  // One thing per file: none over 450 lines (protocol/messages.ts, generated, is ignored above).
  { files: ["**/*.ts"], rules: { "max-lines": ["error", { max: 450 }] } },
  { files: ["cli/**", "bench/**", "test/**"], rules: { "no-console": "off" } },
  { files: ["test/**"], rules: { "no-restricted-properties": "off" } },
);
