/** A reporter that logs on `log` and counts on `metrics` (null: logged only). */
export function faultReporter(log, metrics) {
    return (kind, msg, ctx) => {
        metrics?.fault(kind);
        log.warn({ fault: kind, ...ctx }, msg);
    };
}
//# sourceMappingURL=faults.js.map