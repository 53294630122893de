import { decodeMessage, encodeMessage, MaxLengthError, message, streamMessage } from 'protons-runtime';
import { alloc as uint8ArrayAlloc } from 'uint8arrays/alloc';
export var Contribution;
(function (Contribution) {
    let _codec;
    Contribution.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.runId != null && obj.runId.byteLength > 0)) {
                    w.uint32(10);
                    w.bytes(obj.runId);
                }
                if ((obj.iteration != null && obj.iteration !== 0n)) {
                    w.uint32(16);
                    w.uint64(obj.iteration);
                }
                if ((obj.joinedAt != null && obj.joinedAt !== 0n)) {
                    w.uint32(24);
                    w.uint64(obj.joinedAt);
                }
                if ((obj.payload != null && obj.payload.byteLength > 0)) {
                    w.uint32(34);
                    w.bytes(obj.payload);
                }
                if ((obj.parentHash != null && obj.parentHash.byteLength > 0)) {
                    w.uint32(42);
                    w.bytes(obj.parentHash);
                }
                if ((obj.signature != null && obj.signature.byteLength > 0)) {
                    w.uint32(50);
                    w.bytes(obj.signature);
                }
                if ((obj.staleness != null && obj.staleness !== 0)) {
                    w.uint32(56);
                    w.uint32(obj.staleness);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    runId: uint8ArrayAlloc(0),
                    iteration: 0n,
                    joinedAt: 0n,
                    payload: uint8ArrayAlloc(0),
                    parentHash: uint8ArrayAlloc(0),
                    signature: uint8ArrayAlloc(0),
                    staleness: 0
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.runId = reader.bytes();
                            break;
                        }
                        case 2: {
                            obj.iteration = reader.uint64();
                            break;
                        }
                        case 3: {
                            obj.joinedAt = reader.uint64();
                            break;
                        }
                        case 4: {
                            obj.payload = reader.bytes();
                            break;
                        }
                        case 5: {
                            obj.parentHash = reader.bytes();
                            break;
                        }
                        case 6: {
                            obj.signature = reader.bytes();
                            break;
                        }
                        case 7: {
                            obj.staleness = reader.uint32();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.runId`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.iteration`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 3: {
                            yield {
                                field: `${prefix}.joinedAt`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 4: {
                            yield {
                                field: `${prefix}.payload`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 5: {
                            yield {
                                field: `${prefix}.parentHash`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 6: {
                            yield {
                                field: `${prefix}.signature`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 7: {
                            yield {
                                field: `${prefix}.staleness`,
                                value: reader.uint32()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, Contribution.codec());
    }
    Contribution.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, Contribution.codec(), opts);
    }
    Contribution.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, Contribution.codec(), opts);
    }
    Contribution.stream = stream;
})(Contribution || (Contribution = {}));
export var CommitEntry;
(function (CommitEntry) {
    let _codec;
    CommitEntry.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.author != null && obj.author.byteLength > 0)) {
                    w.uint32(10);
                    w.bytes(obj.author);
                }
                if ((obj.joinedAt != null && obj.joinedAt !== 0n)) {
                    w.uint32(16);
                    w.uint64(obj.joinedAt);
                }
                if ((obj.payload != null && obj.payload.byteLength > 0)) {
                    w.uint32(26);
                    w.bytes(obj.payload);
                }
                if ((obj.signature != null && obj.signature.byteLength > 0)) {
                    w.uint32(34);
                    w.bytes(obj.signature);
                }
                if ((obj.staleness != null && obj.staleness !== 0)) {
                    w.uint32(40);
                    w.uint32(obj.staleness);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    author: uint8ArrayAlloc(0),
                    joinedAt: 0n,
                    payload: uint8ArrayAlloc(0),
                    signature: uint8ArrayAlloc(0),
                    staleness: 0
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.author = reader.bytes();
                            break;
                        }
                        case 2: {
                            obj.joinedAt = reader.uint64();
                            break;
                        }
                        case 3: {
                            obj.payload = reader.bytes();
                            break;
                        }
                        case 4: {
                            obj.signature = reader.bytes();
                            break;
                        }
                        case 5: {
                            obj.staleness = reader.uint32();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.author`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.joinedAt`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 3: {
                            yield {
                                field: `${prefix}.payload`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 4: {
                            yield {
                                field: `${prefix}.signature`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 5: {
                            yield {
                                field: `${prefix}.staleness`,
                                value: reader.uint32()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, CommitEntry.codec());
    }
    CommitEntry.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, CommitEntry.codec(), opts);
    }
    CommitEntry.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, CommitEntry.codec(), opts);
    }
    CommitEntry.stream = stream;
})(CommitEntry || (CommitEntry = {}));
export var Exclusion;
(function (Exclusion) {
    let _codec;
    Exclusion.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.author != null && obj.author.byteLength > 0)) {
                    w.uint32(10);
                    w.bytes(obj.author);
                }
                if ((obj.iteration != null && obj.iteration !== 0n)) {
                    w.uint32(16);
                    w.uint64(obj.iteration);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    author: uint8ArrayAlloc(0),
                    iteration: 0n
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.author = reader.bytes();
                            break;
                        }
                        case 2: {
                            obj.iteration = reader.uint64();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.author`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.iteration`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, Exclusion.codec());
    }
    Exclusion.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, Exclusion.codec(), opts);
    }
    Exclusion.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, Exclusion.codec(), opts);
    }
    Exclusion.stream = stream;
})(Exclusion || (Exclusion = {}));
export var Commit;
(function (Commit) {
    let _codec;
    Commit.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.runId != null && obj.runId.byteLength > 0)) {
                    w.uint32(10);
                    w.bytes(obj.runId);
                }
                if ((obj.iteration != null && obj.iteration !== 0n)) {
                    w.uint32(16);
                    w.uint64(obj.iteration);
                }
                if ((obj.prevHash != null && obj.prevHash.byteLength > 0)) {
                    w.uint32(26);
                    w.bytes(obj.prevHash);
                }
                if (obj.entries != null && obj.entries.length > 0) {
                    for (const value of obj.entries) {
                        w.uint32(34);
                        CommitEntry.codec().encode(value, w);
                    }
                }
                if ((obj.checksum != null && obj.checksum.byteLength > 0)) {
                    w.uint32(42);
                    w.bytes(obj.checksum);
                }
                if ((obj.rank != null && obj.rank !== 0)) {
                    w.uint32(48);
                    w.uint32(obj.rank);
                }
                if ((obj.proposer != null && obj.proposer.byteLength > 0)) {
                    w.uint32(58);
                    w.bytes(obj.proposer);
                }
                if (obj.exclusions != null && obj.exclusions.length > 0) {
                    for (const value of obj.exclusions) {
                        w.uint32(74);
                        Exclusion.codec().encode(value, w);
                    }
                }
                if (obj.olderParents != null && obj.olderParents.length > 0) {
                    for (const value of obj.olderParents) {
                        w.uint32(82);
                        w.bytes(value);
                    }
                }
                if ((obj.signature != null && obj.signature.byteLength > 0)) {
                    w.uint32(66);
                    w.bytes(obj.signature);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    runId: uint8ArrayAlloc(0),
                    iteration: 0n,
                    prevHash: uint8ArrayAlloc(0),
                    entries: [],
                    checksum: uint8ArrayAlloc(0),
                    rank: 0,
                    proposer: uint8ArrayAlloc(0),
                    exclusions: [],
                    olderParents: [],
                    signature: uint8ArrayAlloc(0)
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.runId = reader.bytes();
                            break;
                        }
                        case 2: {
                            obj.iteration = reader.uint64();
                            break;
                        }
                        case 3: {
                            obj.prevHash = reader.bytes();
                            break;
                        }
                        case 4: {
                            if (opts.limits?.entries != null && obj.entries.length === opts.limits.entries) {
                                throw new MaxLengthError('Decode error - repeated field "entries" had too many elements');
                            }
                            obj.entries.push(CommitEntry.codec().decode(reader, reader.uint32(), {
                                limits: opts.limits?.entries$
                            }));
                            break;
                        }
                        case 5: {
                            obj.checksum = reader.bytes();
                            break;
                        }
                        case 6: {
                            obj.rank = reader.uint32();
                            break;
                        }
                        case 7: {
                            obj.proposer = reader.bytes();
                            break;
                        }
                        case 9: {
                            if (opts.limits?.exclusions != null && obj.exclusions.length === opts.limits.exclusions) {
                                throw new MaxLengthError('Decode error - repeated field "exclusions" had too many elements');
                            }
                            obj.exclusions.push(Exclusion.codec().decode(reader, reader.uint32(), {
                                limits: opts.limits?.exclusions$
                            }));
                            break;
                        }
                        case 10: {
                            if (opts.limits?.olderParents != null && obj.olderParents.length === opts.limits.olderParents) {
                                throw new MaxLengthError('Decode error - repeated field "olderParents" had too many elements');
                            }
                            obj.olderParents.push(reader.bytes());
                            break;
                        }
                        case 8: {
                            obj.signature = reader.bytes();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const obj = {
                    entries: 0,
                    exclusions: 0,
                    olderParents: 0
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.runId`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.iteration`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 3: {
                            yield {
                                field: `${prefix}.prevHash`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 4: {
                            if (opts.limits?.entries != null && obj.entries === opts.limits.entries) {
                                throw new MaxLengthError('Streaming decode error - repeated field "entries" had too many elements');
                            }
                            for (const evt of CommitEntry.codec().stream(reader, reader.uint32(), `${prefix}.entries[]`, {
                                limits: opts.limits?.entries$
                            })) {
                                yield {
                                    ...evt,
                                    index: obj.entries
                                };
                            }
                            obj.entries++;
                            break;
                        }
                        case 5: {
                            yield {
                                field: `${prefix}.checksum`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 6: {
                            yield {
                                field: `${prefix}.rank`,
                                value: reader.uint32()
                            };
                            break;
                        }
                        case 7: {
                            yield {
                                field: `${prefix}.proposer`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 9: {
                            if (opts.limits?.exclusions != null && obj.exclusions === opts.limits.exclusions) {
                                throw new MaxLengthError('Streaming decode error - repeated field "exclusions" had too many elements');
                            }
                            for (const evt of Exclusion.codec().stream(reader, reader.uint32(), `${prefix}.exclusions[]`, {
                                limits: opts.limits?.exclusions$
                            })) {
                                yield {
                                    ...evt,
                                    index: obj.exclusions
                                };
                            }
                            obj.exclusions++;
                            break;
                        }
                        case 10: {
                            if (opts.limits?.olderParents != null && obj.olderParents === opts.limits.olderParents) {
                                throw new MaxLengthError('Streaming decode error - repeated field "olderParents" had too many elements');
                            }
                            yield {
                                field: `${prefix}.olderParents[]`,
                                index: obj.olderParents,
                                value: reader.bytes()
                            };
                            obj.olderParents++;
                            break;
                        }
                        case 8: {
                            yield {
                                field: `${prefix}.signature`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, Commit.codec());
    }
    Commit.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, Commit.codec(), opts);
    }
    Commit.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, Commit.codec(), opts);
    }
    Commit.stream = stream;
})(Commit || (Commit = {}));
export var Leave;
(function (Leave) {
    let _codec;
    Leave.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.runId != null && obj.runId.byteLength > 0)) {
                    w.uint32(10);
                    w.bytes(obj.runId);
                }
                if ((obj.iteration != null && obj.iteration !== 0n)) {
                    w.uint32(16);
                    w.uint64(obj.iteration);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    runId: uint8ArrayAlloc(0),
                    iteration: 0n
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.runId = reader.bytes();
                            break;
                        }
                        case 2: {
                            obj.iteration = reader.uint64();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.runId`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.iteration`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, Leave.codec());
    }
    Leave.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, Leave.codec(), opts);
    }
    Leave.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, Leave.codec(), opts);
    }
    Leave.stream = stream;
})(Leave || (Leave = {}));
export var Heartbeat;
(function (Heartbeat) {
    let _codec;
    Heartbeat.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.runId != null && obj.runId.byteLength > 0)) {
                    w.uint32(10);
                    w.bytes(obj.runId);
                }
                if ((obj.iteration != null && obj.iteration !== 0n)) {
                    w.uint32(16);
                    w.uint64(obj.iteration);
                }
                if ((obj.checksum != null && obj.checksum.byteLength > 0)) {
                    w.uint32(26);
                    w.bytes(obj.checksum);
                }
                if ((obj.joinedAt != null && obj.joinedAt !== 0n)) {
                    w.uint32(32);
                    w.uint64(obj.joinedAt);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    runId: uint8ArrayAlloc(0),
                    iteration: 0n,
                    checksum: uint8ArrayAlloc(0),
                    joinedAt: 0n
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.runId = reader.bytes();
                            break;
                        }
                        case 2: {
                            obj.iteration = reader.uint64();
                            break;
                        }
                        case 3: {
                            obj.checksum = reader.bytes();
                            break;
                        }
                        case 4: {
                            obj.joinedAt = reader.uint64();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.runId`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.iteration`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 3: {
                            yield {
                                field: `${prefix}.checksum`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 4: {
                            yield {
                                field: `${prefix}.joinedAt`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, Heartbeat.codec());
    }
    Heartbeat.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, Heartbeat.codec(), opts);
    }
    Heartbeat.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, Heartbeat.codec(), opts);
    }
    Heartbeat.stream = stream;
})(Heartbeat || (Heartbeat = {}));
export var RunSpecRequest;
(function (RunSpecRequest) {
    let _codec;
    RunSpecRequest.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.runId != null && obj.runId.byteLength > 0)) {
                    w.uint32(10);
                    w.bytes(obj.runId);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    runId: uint8ArrayAlloc(0)
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.runId = reader.bytes();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.runId`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, RunSpecRequest.codec());
    }
    RunSpecRequest.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, RunSpecRequest.codec(), opts);
    }
    RunSpecRequest.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, RunSpecRequest.codec(), opts);
    }
    RunSpecRequest.stream = stream;
})(RunSpecRequest || (RunSpecRequest = {}));
export var RunSpecResponse;
(function (RunSpecResponse) {
    let _codec;
    RunSpecResponse.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.specJson != null && obj.specJson !== '')) {
                    w.uint32(10);
                    w.string(obj.specJson);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    specJson: ''
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.specJson = reader.string();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.specJson`,
                                value: reader.string()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, RunSpecResponse.codec());
    }
    RunSpecResponse.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, RunSpecResponse.codec(), opts);
    }
    RunSpecResponse.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, RunSpecResponse.codec(), opts);
    }
    RunSpecResponse.stream = stream;
})(RunSpecResponse || (RunSpecResponse = {}));
export var SnapshotRequest;
(function (SnapshotRequest) {
    let _codec;
    SnapshotRequest.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.runId != null && obj.runId.byteLength > 0)) {
                    w.uint32(10);
                    w.bytes(obj.runId);
                }
                if ((obj.chunk != null && obj.chunk !== 0)) {
                    w.uint32(16);
                    w.uint32(obj.chunk);
                }
                if ((obj.chunkSize != null && obj.chunkSize !== 0)) {
                    w.uint32(24);
                    w.uint32(obj.chunkSize);
                }
                if ((obj.iteration != null && obj.iteration !== 0n)) {
                    w.uint32(32);
                    w.uint64(obj.iteration);
                }
                if ((obj.exact != null && obj.exact !== false)) {
                    w.uint32(40);
                    w.bool(obj.exact);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    runId: uint8ArrayAlloc(0),
                    chunk: 0,
                    chunkSize: 0,
                    iteration: 0n,
                    exact: false
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.runId = reader.bytes();
                            break;
                        }
                        case 2: {
                            obj.chunk = reader.uint32();
                            break;
                        }
                        case 3: {
                            obj.chunkSize = reader.uint32();
                            break;
                        }
                        case 4: {
                            obj.iteration = reader.uint64();
                            break;
                        }
                        case 5: {
                            obj.exact = reader.bool();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.runId`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.chunk`,
                                value: reader.uint32()
                            };
                            break;
                        }
                        case 3: {
                            yield {
                                field: `${prefix}.chunkSize`,
                                value: reader.uint32()
                            };
                            break;
                        }
                        case 4: {
                            yield {
                                field: `${prefix}.iteration`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 5: {
                            yield {
                                field: `${prefix}.exact`,
                                value: reader.bool()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, SnapshotRequest.codec());
    }
    SnapshotRequest.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, SnapshotRequest.codec(), opts);
    }
    SnapshotRequest.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, SnapshotRequest.codec(), opts);
    }
    SnapshotRequest.stream = stream;
})(SnapshotRequest || (SnapshotRequest = {}));
export var SnapshotResponse;
(function (SnapshotResponse) {
    let _codec;
    SnapshotResponse.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.iteration != null && obj.iteration !== 0n)) {
                    w.uint32(8);
                    w.uint64(obj.iteration);
                }
                if ((obj.checksum != null && obj.checksum.byteLength > 0)) {
                    w.uint32(18);
                    w.bytes(obj.checksum);
                }
                if ((obj.totalChunks != null && obj.totalChunks !== 0)) {
                    w.uint32(24);
                    w.uint32(obj.totalChunks);
                }
                if ((obj.data != null && obj.data.byteLength > 0)) {
                    w.uint32(34);
                    w.bytes(obj.data);
                }
                if ((obj.chunkHash != null && obj.chunkHash.byteLength > 0)) {
                    w.uint32(42);
                    w.bytes(obj.chunkHash);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    iteration: 0n,
                    checksum: uint8ArrayAlloc(0),
                    totalChunks: 0,
                    data: uint8ArrayAlloc(0),
                    chunkHash: uint8ArrayAlloc(0)
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.iteration = reader.uint64();
                            break;
                        }
                        case 2: {
                            obj.checksum = reader.bytes();
                            break;
                        }
                        case 3: {
                            obj.totalChunks = reader.uint32();
                            break;
                        }
                        case 4: {
                            obj.data = reader.bytes();
                            break;
                        }
                        case 5: {
                            obj.chunkHash = reader.bytes();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.iteration`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.checksum`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 3: {
                            yield {
                                field: `${prefix}.totalChunks`,
                                value: reader.uint32()
                            };
                            break;
                        }
                        case 4: {
                            yield {
                                field: `${prefix}.data`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 5: {
                            yield {
                                field: `${prefix}.chunkHash`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, SnapshotResponse.codec());
    }
    SnapshotResponse.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, SnapshotResponse.codec(), opts);
    }
    SnapshotResponse.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, SnapshotResponse.codec(), opts);
    }
    SnapshotResponse.stream = stream;
})(SnapshotResponse || (SnapshotResponse = {}));
export var CommitsRequest;
(function (CommitsRequest) {
    let _codec;
    CommitsRequest.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.runId != null && obj.runId.byteLength > 0)) {
                    w.uint32(10);
                    w.bytes(obj.runId);
                }
                if ((obj.fromIteration != null && obj.fromIteration !== 0n)) {
                    w.uint32(16);
                    w.uint64(obj.fromIteration);
                }
                if ((obj.max != null && obj.max !== 0)) {
                    w.uint32(24);
                    w.uint32(obj.max);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    runId: uint8ArrayAlloc(0),
                    fromIteration: 0n,
                    max: 0
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.runId = reader.bytes();
                            break;
                        }
                        case 2: {
                            obj.fromIteration = reader.uint64();
                            break;
                        }
                        case 3: {
                            obj.max = reader.uint32();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.runId`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.fromIteration`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 3: {
                            yield {
                                field: `${prefix}.max`,
                                value: reader.uint32()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, CommitsRequest.codec());
    }
    CommitsRequest.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, CommitsRequest.codec(), opts);
    }
    CommitsRequest.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, CommitsRequest.codec(), opts);
    }
    CommitsRequest.stream = stream;
})(CommitsRequest || (CommitsRequest = {}));
export var CommitsResponse;
(function (CommitsResponse) {
    let _codec;
    CommitsResponse.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if (obj.commits != null && obj.commits.length > 0) {
                    for (const value of obj.commits) {
                        w.uint32(10);
                        w.bytes(value);
                    }
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    commits: []
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            if (opts.limits?.commits != null && obj.commits.length === opts.limits.commits) {
                                throw new MaxLengthError('Decode error - repeated field "commits" had too many elements');
                            }
                            obj.commits.push(reader.bytes());
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const obj = {
                    commits: 0
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            if (opts.limits?.commits != null && obj.commits === opts.limits.commits) {
                                throw new MaxLengthError('Streaming decode error - repeated field "commits" had too many elements');
                            }
                            yield {
                                field: `${prefix}.commits[]`,
                                index: obj.commits,
                                value: reader.bytes()
                            };
                            obj.commits++;
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, CommitsResponse.codec());
    }
    CommitsResponse.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, CommitsResponse.codec(), opts);
    }
    CommitsResponse.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, CommitsResponse.codec(), opts);
    }
    CommitsResponse.stream = stream;
})(CommitsResponse || (CommitsResponse = {}));
export var ChecksumRequest;
(function (ChecksumRequest) {
    let _codec;
    ChecksumRequest.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.runId != null && obj.runId.byteLength > 0)) {
                    w.uint32(10);
                    w.bytes(obj.runId);
                }
                if ((obj.iteration != null && obj.iteration !== 0n)) {
                    w.uint32(16);
                    w.uint64(obj.iteration);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    runId: uint8ArrayAlloc(0),
                    iteration: 0n
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.runId = reader.bytes();
                            break;
                        }
                        case 2: {
                            obj.iteration = reader.uint64();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.runId`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.iteration`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, ChecksumRequest.codec());
    }
    ChecksumRequest.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, ChecksumRequest.codec(), opts);
    }
    ChecksumRequest.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, ChecksumRequest.codec(), opts);
    }
    ChecksumRequest.stream = stream;
})(ChecksumRequest || (ChecksumRequest = {}));
export var ChecksumResponse;
(function (ChecksumResponse) {
    let _codec;
    ChecksumResponse.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.iteration != null && obj.iteration !== 0n)) {
                    w.uint32(8);
                    w.uint64(obj.iteration);
                }
                if ((obj.checksum != null && obj.checksum.byteLength > 0)) {
                    w.uint32(18);
                    w.bytes(obj.checksum);
                }
                if ((obj.known != null && obj.known !== false)) {
                    w.uint32(24);
                    w.bool(obj.known);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    iteration: 0n,
                    checksum: uint8ArrayAlloc(0),
                    known: false
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.iteration = reader.uint64();
                            break;
                        }
                        case 2: {
                            obj.checksum = reader.bytes();
                            break;
                        }
                        case 3: {
                            obj.known = reader.bool();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.iteration`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.checksum`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 3: {
                            yield {
                                field: `${prefix}.known`,
                                value: reader.bool()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, ChecksumResponse.codec());
    }
    ChecksumResponse.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, ChecksumResponse.codec(), opts);
    }
    ChecksumResponse.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, ChecksumResponse.codec(), opts);
    }
    ChecksumResponse.stream = stream;
})(ChecksumResponse || (ChecksumResponse = {}));
export var ExpertEntry;
(function (ExpertEntry) {
    let _codec;
    ExpertEntry.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if ((obj.suffix != null && obj.suffix !== 0)) {
                    w.uint32(8);
                    w.uint32(obj.suffix);
                }
                if ((obj.peer != null && obj.peer.byteLength > 0)) {
                    w.uint32(18);
                    w.bytes(obj.peer);
                }
                if ((obj.timestamp != null && obj.timestamp !== 0n)) {
                    w.uint32(24);
                    w.uint64(obj.timestamp);
                }
                if ((obj.expiresAt != null && obj.expiresAt !== 0n)) {
                    w.uint32(32);
                    w.uint64(obj.expiresAt);
                }
                if ((obj.signature != null && obj.signature.byteLength > 0)) {
                    w.uint32(42);
                    w.bytes(obj.signature);
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    suffix: 0,
                    peer: uint8ArrayAlloc(0),
                    timestamp: 0n,
                    expiresAt: 0n,
                    signature: uint8ArrayAlloc(0)
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            obj.suffix = reader.uint32();
                            break;
                        }
                        case 2: {
                            obj.peer = reader.bytes();
                            break;
                        }
                        case 3: {
                            obj.timestamp = reader.uint64();
                            break;
                        }
                        case 4: {
                            obj.expiresAt = reader.uint64();
                            break;
                        }
                        case 5: {
                            obj.signature = reader.bytes();
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            yield {
                                field: `${prefix}.suffix`,
                                value: reader.uint32()
                            };
                            break;
                        }
                        case 2: {
                            yield {
                                field: `${prefix}.peer`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        case 3: {
                            yield {
                                field: `${prefix}.timestamp`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 4: {
                            yield {
                                field: `${prefix}.expiresAt`,
                                value: reader.uint64()
                            };
                            break;
                        }
                        case 5: {
                            yield {
                                field: `${prefix}.signature`,
                                value: reader.bytes()
                            };
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, ExpertEntry.codec());
    }
    ExpertEntry.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, ExpertEntry.codec(), opts);
    }
    ExpertEntry.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, ExpertEntry.codec(), opts);
    }
    ExpertEntry.stream = stream;
})(ExpertEntry || (ExpertEntry = {}));
export var ExpertRecord;
(function (ExpertRecord) {
    let _codec;
    ExpertRecord.codec = () => {
        if (_codec == null) {
            _codec = message((obj, w, opts = {}) => {
                if (opts.lengthDelimited !== false) {
                    w.fork();
                }
                if (obj.entries != null && obj.entries.length > 0) {
                    for (const value of obj.entries) {
                        w.uint32(10);
                        ExpertEntry.codec().encode(value, w);
                    }
                }
                if (opts.lengthDelimited !== false) {
                    w.ldelim();
                }
            }, (reader, length, opts = {}) => {
                const obj = {
                    entries: []
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            if (opts.limits?.entries != null && obj.entries.length === opts.limits.entries) {
                                throw new MaxLengthError('Decode error - repeated field "entries" had too many elements');
                            }
                            obj.entries.push(ExpertEntry.codec().decode(reader, reader.uint32(), {
                                limits: opts.limits?.entries$
                            }));
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
                return obj;
            }, function* (reader, length, prefix, opts = {}) {
                const obj = {
                    entries: 0
                };
                const end = length == null ? reader.len : reader.pos + length;
                while (reader.pos < end) {
                    const tag = reader.uint32();
                    switch (tag >>> 3) {
                        case 1: {
                            if (opts.limits?.entries != null && obj.entries === opts.limits.entries) {
                                throw new MaxLengthError('Streaming decode error - repeated field "entries" had too many elements');
                            }
                            for (const evt of ExpertEntry.codec().stream(reader, reader.uint32(), `${prefix}.entries[]`, {
                                limits: opts.limits?.entries$
                            })) {
                                yield {
                                    ...evt,
                                    index: obj.entries
                                };
                            }
                            obj.entries++;
                            break;
                        }
                        default: {
                            reader.skipType(tag & 7);
                            break;
                        }
                    }
                }
            });
        }
        return _codec;
    };
    function encode(obj) {
        return encodeMessage(obj, ExpertRecord.codec());
    }
    ExpertRecord.encode = encode;
    function decode(buf, opts) {
        return decodeMessage(buf, ExpertRecord.codec(), opts);
    }
    ExpertRecord.decode = decode;
    function stream(buf, opts) {
        return streamMessage(buf, ExpertRecord.codec(), opts);
    }
    ExpertRecord.stream = stream;
})(ExpertRecord || (ExpertRecord = {}));
//# sourceMappingURL=messages.js.map