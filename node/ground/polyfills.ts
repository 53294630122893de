/**
 * Runtime polyfills that libp2p expects. Import this module first, before anything that imports
 * libp2p: ES modules evaluate in import order, so a later import sees the patched globals.
 *
 * - `Promise.withResolvers` (ES2024): Node 22 has it, Node 20 does not, and libp2p, yamux and
 *   it-queue call it on every stream; without it the first dial fails with a TypeError.
 */

/** The ES2024 shape; declared here because tsconfig's lib stops at ES2023. */
interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const PromiseCtor = Promise as PromiseConstructor & { withResolvers?: <T>() => Resolvers<T> };

if (typeof PromiseCtor.withResolvers !== "function") {
  Object.defineProperty(PromiseCtor, "withResolvers", {
    // Same attributes as the built-in, so the polyfill is indistinguishable from it.
    configurable: true,
    writable: true,
    enumerable: false,
    value: function withResolvers<T>(this: PromiseConstructor): Resolvers<T> {
      let resolve!: Resolvers<T>["resolve"];
      let reject!: Resolvers<T>["reject"];
      // `this` rather than `Promise`, as the spec does, so subclasses get their own kind.
      const promise = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}
