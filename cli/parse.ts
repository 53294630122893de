/** Flag parsers shared by the commands: each validates and throws a message naming the flag. */
import { InvalidArgumentError } from "commander";

/** An integer flag within [min, max]. */
export function intIn(min: number, max: number) {
  return (raw: string): number => {
    const v = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(v) || v < min || v > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}, got "${raw}"`);
    }
    return v;
  };
}
