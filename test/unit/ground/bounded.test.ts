/** The bounded collections of node/ground: never past their bound, the oldest (or least recently used) forgotten first. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BoundedLru, BoundedMap, BoundedSet } from "../../../node/ground/index.js";

describe("BoundedLru", () => {
  it("never holds more than its bound and forgets the least recently used first", () => {
    const lru = new BoundedLru<string, number>(3);
    for (const [i, k] of ["a", "b", "c"].entries()) lru.set(k, i);
    assert.equal(lru.get("a"), 0, "a is now the most recent");
    lru.set("d", 3);
    assert.equal(lru.size, 3);
    assert.equal(lru.get("b"), undefined, "b was the least recent");
    assert.deepEqual(["a", "c", "d"].map((k) => lru.get(k)), [0, 2, 3]);
    for (let i = 0; i < 100; i++) lru.set(`k${i}`, i);
    assert.equal(lru.size, 3);
  });
});

describe("BoundedMap and BoundedSet", () => {
  it("forget the oldest past their bound; setting a present key keeps its age, refresh makes it the newest", () => {
    const m = new BoundedMap<string, number>(3);
    for (const [i, k] of ["a", "b", "c"].entries()) m.set(k, i);
    m.set("a", 10);
    m.set("d", 3);
    assert.deepEqual([...m.keys()], ["b", "c", "d"], "a kept its age and went first");
    m.refresh("b", 11);
    m.set("e", 4);
    assert.deepEqual([...m.entries()], [["d", 3], ["b", 11], ["e", 4]]);
    for (let i = 0; i < 1000; i++) m.set(`k${i}`, i);
    assert.equal(m.size, 3);
    assert.ok(m instanceof Map, "a Map wherever one is expected");
    const s = new BoundedSet<string>(2);
    for (const k of ["x", "y", "x", "z"]) s.add(k);
    assert.deepEqual([...s], ["y", "z"]);
    for (let i = 0; i < 1000; i++) s.add(`k${i}`);
    assert.equal(s.size, 2);
  });
});
