/** Where the language-model fixtures live (test/fixtures/lm, copied from transformers' outputs; see its README). */
import { fileURLToPath } from "node:url";

/** The fixtures directory, with a trailing slash, from the compiled tests in dist/test/unit. */
export const LM_FIXTURES = fileURLToPath(new URL("../../../test/fixtures/lm/", import.meta.url));
