export const defaultLocalTrainOptions = {
    backend: "auto",
    /** One author reproduces single-node training; more simulate a swarm. */
    authors: 1,
    /** Often enough to see the curve, rare enough to cost < 5% of the run on MNIST. */
    evalEvery: 200,
    /** 2,000 test images: +/-1% accuracy resolution at a tenth of the cost of the full set. */
    evalLimit: 2000,
    checkpointEvery: 500,
    resume: true,
};
//# sourceMappingURL=local-train-options.js.map