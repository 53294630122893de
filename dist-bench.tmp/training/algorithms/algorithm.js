/**
 * The contract every training algorithm keeps (brief section 4): `contribute` is local work
 * (forward passes only) and returns payload bytes; `apply` turns the ordered contributions of an
 * iteration into the next canonical weights, deterministically and without forward passes.
 */
// Re-exported: the algorithms name a contribution beside the contract they implement.
export { compareAuthors, inTimestampOrder } from "./contribution.js";
//# sourceMappingURL=algorithm.js.map