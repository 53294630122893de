/** Timestamp order: author join timestamp, then peer id (code-unit order). */
export function compareAuthors(a, b) {
    if (a.joinedAt !== b.joinedAt)
        return a.joinedAt - b.joinedAt;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
/** A copy of the contributions in timestamp order; throws on two from the same author. */
export function inTimestampOrder(contributions) {
    const sorted = [...contributions].sort((x, y) => compareAuthors(x.author, y.author));
    for (let i = 1; i < sorted.length; i++) {
        if (compareAuthors(sorted[i - 1].author, sorted[i].author) === 0) {
            throw new RangeError(`two contributions from author ${sorted[i].author.id} in one iteration`);
        }
    }
    return sorted;
}
//# sourceMappingURL=contribution.js.map