export class ChainFix {
    rounds;
    /** True while a fix runs. */
    busy = false;
    constructor(rounds) {
        this.rounds = rounds;
    }
    /** Runs `fix` with the rounds following (applying what they are fed, proposing nothing). */
    async run(opts, fix) {
        const wasActive = this.rounds.isActive;
        this.busy = true;
        this.rounds.follow();
        try {
            return await fix();
        }
        finally {
            this.busy = false;
            if (opts.forgetPeersHead)
                this.rounds.forgetPeersHead();
            if (opts.restart === "always" || wasActive)
                this.rounds.start();
        }
    }
}
//# sourceMappingURL=chain-fix.js.map