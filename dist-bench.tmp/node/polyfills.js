/**
 * Runtime polyfills that libp2p expects. Import this module first, before anything that imports
 * libp2p: ES modules evaluate in import order, so a later import sees the patched globals.
 *
 * - `Promise.withResolvers` (ES2024): Node 22 has it, Node 20 does not, and libp2p, yamux and
 *   it-queue call it on every stream; without it the first dial fails with a TypeError.
 */
const PromiseCtor = Promise;
if (typeof PromiseCtor.withResolvers !== "function") {
    Object.defineProperty(PromiseCtor, "withResolvers", {
        // Same attributes as the built-in, so the polyfill is indistinguishable from it.
        configurable: true,
        writable: true,
        enumerable: false,
        value: function withResolvers() {
            let resolve;
            let reject;
            // `this` rather than `Promise`, as the spec does, so subclasses get their own kind.
            const promise = new this((res, rej) => {
                resolve = res;
                reject = rej;
            });
            return { promise, resolve, reject };
        },
    });
}
export {};
//# sourceMappingURL=polyfills.js.map