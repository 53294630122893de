/**
 * Base of every typed error: a fixed string `code` (stable for log fields and metric labels)
 * and a context object with the values that explain the failure.
 */
export class SeedswarmError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly context: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export type WireErrorCode = "WIRE_TOO_LARGE" | "WIRE_MALFORMED" | "WIRE_BAD_FIELD";

/** A message that cannot be (or must not be) put on or taken off the wire. */
export class WireError extends SeedswarmError<WireErrorCode> {}
