/**
 * Base of every typed error: a fixed string `code` (stable for log fields and metric labels)
 * and a context object with the values that explain the failure.
 */
export class SeedswarmError extends Error {
    code;
    context;
    constructor(code, message, context = {}) {
        super(message);
        this.code = code;
        this.context = context;
        this.name = new.target.name;
    }
}
/** A message that cannot be (or must not be) put on or taken off the wire. */
export class WireError extends SeedswarmError {
}
//# sourceMappingURL=errors.js.map