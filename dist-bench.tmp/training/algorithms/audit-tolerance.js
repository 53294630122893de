/**
 * How far (relative to each loss, at least 1) two honest machines' losses on one batch may differ
 * for an audit by recomputation to pass: float32 forward passes on different backends agree to
 * about 5e-7 (test/unit/training/spsa-audit.test.ts measures cpu against wasm); 1e-4 leaves a
 * margin. A contribution whose claim lies within it passes, however it was made: the bound on
 * what an in-tolerance cheat can do is docs/security.md's "What audits cannot catch".
 */
export const AUDIT_LOSS_TOLERANCE = 1e-4;
//# sourceMappingURL=audit-tolerance.js.map