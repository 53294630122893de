export class Membership {
    members;
    constructor(members) {
        this.members = members ? new Set(members) : null;
    }
    /** The membership a spec defines. */
    static of(spec) {
        return new Membership(spec.members);
    }
    /** Every peer: an open run, or a node that does not know the spec yet (joining by runId). */
    static OPEN = new Membership(undefined);
    /** True for an open run. */
    get open() {
        return this.members === null;
    }
    /** Members listed by the spec (0 for an open run). */
    get size() {
        return this.members?.size ?? 0;
    }
    /** Whether messages, requests and records of this peer id (canonical string) count. */
    admits(peerId) {
        return this.members === null || this.members.has(peerId);
    }
}
//# sourceMappingURL=membership.js.map