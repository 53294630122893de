import { decodeMessage, encodeMessage, MaxLengthError, message, streamMessage } from 'protons-runtime'
import { alloc as uint8ArrayAlloc } from 'uint8arrays/alloc'
import type { Codec, DecodeOptions } from 'protons-runtime'
import type { Uint8ArrayList } from 'uint8arraylist'

export interface Contribution {
  runId: Uint8Array<ArrayBuffer>
  iteration: bigint
  joinedAt: bigint
  payload: Uint8Array<ArrayBuffer>
  parentHash: Uint8Array<ArrayBuffer>
  signature: Uint8Array<ArrayBuffer>
  staleness: number
  author: Uint8Array<ArrayBuffer>
}

export namespace Contribution {
  let _codec: Codec<Contribution>

  export const codec = (): Codec<Contribution> => {
    if (_codec == null) {
      _codec = message<Contribution>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.runId != null && obj.runId.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.runId)
        }

        if ((obj.iteration != null && obj.iteration !== 0n)) {
          w.uint32(16)
          w.uint64(obj.iteration)
        }

        if ((obj.joinedAt != null && obj.joinedAt !== 0n)) {
          w.uint32(24)
          w.uint64(obj.joinedAt)
        }

        if ((obj.payload != null && obj.payload.byteLength > 0)) {
          w.uint32(34)
          w.bytes(obj.payload)
        }

        if ((obj.parentHash != null && obj.parentHash.byteLength > 0)) {
          w.uint32(42)
          w.bytes(obj.parentHash)
        }

        if ((obj.signature != null && obj.signature.byteLength > 0)) {
          w.uint32(50)
          w.bytes(obj.signature)
        }

        if ((obj.staleness != null && obj.staleness !== 0)) {
          w.uint32(56)
          w.uint32(obj.staleness)
        }

        if ((obj.author != null && obj.author.byteLength > 0)) {
          w.uint32(66)
          w.bytes(obj.author)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          runId: uint8ArrayAlloc(0),
          iteration: 0n,
          joinedAt: 0n,
          payload: uint8ArrayAlloc(0),
          parentHash: uint8ArrayAlloc(0),
          signature: uint8ArrayAlloc(0),
          staleness: 0,
          author: uint8ArrayAlloc(0)
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.runId = reader.bytes()
              break
            }
            case 2: {
              obj.iteration = reader.uint64()
              break
            }
            case 3: {
              obj.joinedAt = reader.uint64()
              break
            }
            case 4: {
              obj.payload = reader.bytes()
              break
            }
            case 5: {
              obj.parentHash = reader.bytes()
              break
            }
            case 6: {
              obj.signature = reader.bytes()
              break
            }
            case 7: {
              obj.staleness = reader.uint32()
              break
            }
            case 8: {
              obj.author = reader.bytes()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.runId`,
                value: reader.bytes()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.iteration`,
                value: reader.uint64()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.joinedAt`,
                value: reader.uint64()
              }
              break
            }
            case 4: {
              yield {
                field: `${prefix}.payload`,
                value: reader.bytes()
              }
              break
            }
            case 5: {
              yield {
                field: `${prefix}.parentHash`,
                value: reader.bytes()
              }
              break
            }
            case 6: {
              yield {
                field: `${prefix}.signature`,
                value: reader.bytes()
              }
              break
            }
            case 7: {
              yield {
                field: `${prefix}.staleness`,
                value: reader.uint32()
              }
              break
            }
            case 8: {
              yield {
                field: `${prefix}.author`,
                value: reader.bytes()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface ContributionRunIdFieldEvent {
    field: '$.runId'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ContributionIterationFieldEvent {
    field: '$.iteration'
    value: bigint
  }

  export interface ContributionJoinedAtFieldEvent {
    field: '$.joinedAt'
    value: bigint
  }

  export interface ContributionPayloadFieldEvent {
    field: '$.payload'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ContributionParentHashFieldEvent {
    field: '$.parentHash'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ContributionSignatureFieldEvent {
    field: '$.signature'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ContributionStalenessFieldEvent {
    field: '$.staleness'
    value: number
  }

  export interface ContributionAuthorFieldEvent {
    field: '$.author'
    value: Uint8Array<ArrayBuffer>
  }

  export function encode (obj: Partial<Contribution>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, Contribution.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Contribution>): Contribution {
    return decodeMessage(buf, Contribution.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Contribution>): Generator<ContributionRunIdFieldEvent | ContributionIterationFieldEvent | ContributionJoinedAtFieldEvent | ContributionPayloadFieldEvent | ContributionParentHashFieldEvent | ContributionSignatureFieldEvent | ContributionStalenessFieldEvent | ContributionAuthorFieldEvent> {
    return streamMessage(buf, Contribution.codec(), opts)
  }
}

export interface CommitEntry {
  author: Uint8Array<ArrayBuffer>
  joinedAt: bigint
  payload: Uint8Array<ArrayBuffer>
  signature: Uint8Array<ArrayBuffer>
  staleness: number
}

export namespace CommitEntry {
  let _codec: Codec<CommitEntry>

  export const codec = (): Codec<CommitEntry> => {
    if (_codec == null) {
      _codec = message<CommitEntry>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.author != null && obj.author.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.author)
        }

        if ((obj.joinedAt != null && obj.joinedAt !== 0n)) {
          w.uint32(16)
          w.uint64(obj.joinedAt)
        }

        if ((obj.payload != null && obj.payload.byteLength > 0)) {
          w.uint32(26)
          w.bytes(obj.payload)
        }

        if ((obj.signature != null && obj.signature.byteLength > 0)) {
          w.uint32(34)
          w.bytes(obj.signature)
        }

        if ((obj.staleness != null && obj.staleness !== 0)) {
          w.uint32(40)
          w.uint32(obj.staleness)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          author: uint8ArrayAlloc(0),
          joinedAt: 0n,
          payload: uint8ArrayAlloc(0),
          signature: uint8ArrayAlloc(0),
          staleness: 0
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.author = reader.bytes()
              break
            }
            case 2: {
              obj.joinedAt = reader.uint64()
              break
            }
            case 3: {
              obj.payload = reader.bytes()
              break
            }
            case 4: {
              obj.signature = reader.bytes()
              break
            }
            case 5: {
              obj.staleness = reader.uint32()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.author`,
                value: reader.bytes()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.joinedAt`,
                value: reader.uint64()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.payload`,
                value: reader.bytes()
              }
              break
            }
            case 4: {
              yield {
                field: `${prefix}.signature`,
                value: reader.bytes()
              }
              break
            }
            case 5: {
              yield {
                field: `${prefix}.staleness`,
                value: reader.uint32()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface CommitEntryAuthorFieldEvent {
    field: '$.author'
    value: Uint8Array<ArrayBuffer>
  }

  export interface CommitEntryJoinedAtFieldEvent {
    field: '$.joinedAt'
    value: bigint
  }

  export interface CommitEntryPayloadFieldEvent {
    field: '$.payload'
    value: Uint8Array<ArrayBuffer>
  }

  export interface CommitEntrySignatureFieldEvent {
    field: '$.signature'
    value: Uint8Array<ArrayBuffer>
  }

  export interface CommitEntryStalenessFieldEvent {
    field: '$.staleness'
    value: number
  }

  export function encode (obj: Partial<CommitEntry>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, CommitEntry.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<CommitEntry>): CommitEntry {
    return decodeMessage(buf, CommitEntry.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<CommitEntry>): Generator<CommitEntryAuthorFieldEvent | CommitEntryJoinedAtFieldEvent | CommitEntryPayloadFieldEvent | CommitEntrySignatureFieldEvent | CommitEntryStalenessFieldEvent> {
    return streamMessage(buf, CommitEntry.codec(), opts)
  }
}

export interface Exclusion {
  author: Uint8Array<ArrayBuffer>
  iteration: bigint
}

export namespace Exclusion {
  let _codec: Codec<Exclusion>

  export const codec = (): Codec<Exclusion> => {
    if (_codec == null) {
      _codec = message<Exclusion>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.author != null && obj.author.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.author)
        }

        if ((obj.iteration != null && obj.iteration !== 0n)) {
          w.uint32(16)
          w.uint64(obj.iteration)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          author: uint8ArrayAlloc(0),
          iteration: 0n
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.author = reader.bytes()
              break
            }
            case 2: {
              obj.iteration = reader.uint64()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.author`,
                value: reader.bytes()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.iteration`,
                value: reader.uint64()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface ExclusionAuthorFieldEvent {
    field: '$.author'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ExclusionIterationFieldEvent {
    field: '$.iteration'
    value: bigint
  }

  export function encode (obj: Partial<Exclusion>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, Exclusion.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Exclusion>): Exclusion {
    return decodeMessage(buf, Exclusion.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Exclusion>): Generator<ExclusionAuthorFieldEvent | ExclusionIterationFieldEvent> {
    return streamMessage(buf, Exclusion.codec(), opts)
  }
}

export interface Commit {
  runId: Uint8Array<ArrayBuffer>
  iteration: bigint
  prevHash: Uint8Array<ArrayBuffer>
  entries: CommitEntry[]
  checksum: Uint8Array<ArrayBuffer>
  rank: number
  proposer: Uint8Array<ArrayBuffer>
  exclusions: Exclusion[]
  olderParents: Uint8Array<ArrayBuffer>[]
  signature: Uint8Array<ArrayBuffer>
}

export namespace Commit {
  let _codec: Codec<Commit>

  export const codec = (): Codec<Commit> => {
    if (_codec == null) {
      _codec = message<Commit>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.runId != null && obj.runId.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.runId)
        }

        if ((obj.iteration != null && obj.iteration !== 0n)) {
          w.uint32(16)
          w.uint64(obj.iteration)
        }

        if ((obj.prevHash != null && obj.prevHash.byteLength > 0)) {
          w.uint32(26)
          w.bytes(obj.prevHash)
        }

        if (obj.entries != null && obj.entries.length > 0) {
          for (const value of obj.entries) {
            w.uint32(34)
            CommitEntry.codec().encode(value, w)
          }
        }

        if ((obj.checksum != null && obj.checksum.byteLength > 0)) {
          w.uint32(42)
          w.bytes(obj.checksum)
        }

        if ((obj.rank != null && obj.rank !== 0)) {
          w.uint32(48)
          w.uint32(obj.rank)
        }

        if ((obj.proposer != null && obj.proposer.byteLength > 0)) {
          w.uint32(58)
          w.bytes(obj.proposer)
        }

        if (obj.exclusions != null && obj.exclusions.length > 0) {
          for (const value of obj.exclusions) {
            w.uint32(74)
            Exclusion.codec().encode(value, w)
          }
        }

        if (obj.olderParents != null && obj.olderParents.length > 0) {
          for (const value of obj.olderParents) {
            w.uint32(82)
            w.bytes(value)
          }
        }

        if ((obj.signature != null && obj.signature.byteLength > 0)) {
          w.uint32(66)
          w.bytes(obj.signature)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
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
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.runId = reader.bytes()
              break
            }
            case 2: {
              obj.iteration = reader.uint64()
              break
            }
            case 3: {
              obj.prevHash = reader.bytes()
              break
            }
            case 4: {
              if (opts.limits?.entries != null && obj.entries.length === opts.limits.entries) {
                throw new MaxLengthError('Decode error - repeated field "entries" had too many elements')
              }

              obj.entries.push(CommitEntry.codec().decode(reader, reader.uint32(), {
                limits: opts.limits?.entries$
              }))
              break
            }
            case 5: {
              obj.checksum = reader.bytes()
              break
            }
            case 6: {
              obj.rank = reader.uint32()
              break
            }
            case 7: {
              obj.proposer = reader.bytes()
              break
            }
            case 9: {
              if (opts.limits?.exclusions != null && obj.exclusions.length === opts.limits.exclusions) {
                throw new MaxLengthError('Decode error - repeated field "exclusions" had too many elements')
              }

              obj.exclusions.push(Exclusion.codec().decode(reader, reader.uint32(), {
                limits: opts.limits?.exclusions$
              }))
              break
            }
            case 10: {
              if (opts.limits?.olderParents != null && obj.olderParents.length === opts.limits.olderParents) {
                throw new MaxLengthError('Decode error - repeated field "olderParents" had too many elements')
              }

              obj.olderParents.push(reader.bytes())
              break
            }
            case 8: {
              obj.signature = reader.bytes()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const obj = {
          entries: 0,
          exclusions: 0,
          olderParents: 0
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.runId`,
                value: reader.bytes()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.iteration`,
                value: reader.uint64()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.prevHash`,
                value: reader.bytes()
              }
              break
            }
            case 4: {
              if (opts.limits?.entries != null && obj.entries === opts.limits.entries) {
                throw new MaxLengthError('Streaming decode error - repeated field "entries" had too many elements')
              }

              for (const evt of CommitEntry.codec().stream(reader, reader.uint32(), `${prefix}.entries[]`, {
                limits: opts.limits?.entries$
              })) {
                yield {
                  ...evt,
                  index: obj.entries
                }
              }

              obj.entries++

              break
            }
            case 5: {
              yield {
                field: `${prefix}.checksum`,
                value: reader.bytes()
              }
              break
            }
            case 6: {
              yield {
                field: `${prefix}.rank`,
                value: reader.uint32()
              }
              break
            }
            case 7: {
              yield {
                field: `${prefix}.proposer`,
                value: reader.bytes()
              }
              break
            }
            case 9: {
              if (opts.limits?.exclusions != null && obj.exclusions === opts.limits.exclusions) {
                throw new MaxLengthError('Streaming decode error - repeated field "exclusions" had too many elements')
              }

              for (const evt of Exclusion.codec().stream(reader, reader.uint32(), `${prefix}.exclusions[]`, {
                limits: opts.limits?.exclusions$
              })) {
                yield {
                  ...evt,
                  index: obj.exclusions
                }
              }

              obj.exclusions++

              break
            }
            case 10: {
              if (opts.limits?.olderParents != null && obj.olderParents === opts.limits.olderParents) {
                throw new MaxLengthError('Streaming decode error - repeated field "olderParents" had too many elements')
              }

              yield {
                field: `${prefix}.olderParents[]`,
                index: obj.olderParents,
                value: reader.bytes()
              }

              obj.olderParents++

              break
            }
            case 8: {
              yield {
                field: `${prefix}.signature`,
                value: reader.bytes()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface CommitRunIdFieldEvent {
    field: '$.runId'
    value: Uint8Array<ArrayBuffer>
  }

  export interface CommitIterationFieldEvent {
    field: '$.iteration'
    value: bigint
  }

  export interface CommitPrevHashFieldEvent {
    field: '$.prevHash'
    value: Uint8Array<ArrayBuffer>
  }

  export interface CommitEntriesAuthorFieldEvent {
    field: '$.entries[].author'
    value: Uint8Array<ArrayBuffer>
    index: number
  }

  export interface CommitEntriesJoinedAtFieldEvent {
    field: '$.entries[].joinedAt'
    value: bigint
    index: number
  }

  export interface CommitEntriesPayloadFieldEvent {
    field: '$.entries[].payload'
    value: Uint8Array<ArrayBuffer>
    index: number
  }

  export interface CommitEntriesSignatureFieldEvent {
    field: '$.entries[].signature'
    value: Uint8Array<ArrayBuffer>
    index: number
  }

  export interface CommitEntriesStalenessFieldEvent {
    field: '$.entries[].staleness'
    value: number
    index: number
  }

  export interface CommitChecksumFieldEvent {
    field: '$.checksum'
    value: Uint8Array<ArrayBuffer>
  }

  export interface CommitRankFieldEvent {
    field: '$.rank'
    value: number
  }

  export interface CommitProposerFieldEvent {
    field: '$.proposer'
    value: Uint8Array<ArrayBuffer>
  }

  export interface CommitExclusionsAuthorFieldEvent {
    field: '$.exclusions[].author'
    value: Uint8Array<ArrayBuffer>
    index: number
  }

  export interface CommitExclusionsIterationFieldEvent {
    field: '$.exclusions[].iteration'
    value: bigint
    index: number
  }

  export interface CommitOlderParentsFieldEvent {
    field: '$.olderParents[]'
    index: number
    value: Uint8Array<ArrayBuffer>
  }

  export interface CommitSignatureFieldEvent {
    field: '$.signature'
    value: Uint8Array<ArrayBuffer>
  }

  export function encode (obj: Partial<Commit>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, Commit.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Commit>): Commit {
    return decodeMessage(buf, Commit.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Commit>): Generator<CommitRunIdFieldEvent | CommitIterationFieldEvent | CommitPrevHashFieldEvent | CommitEntriesAuthorFieldEvent | CommitEntriesJoinedAtFieldEvent | CommitEntriesPayloadFieldEvent | CommitEntriesSignatureFieldEvent | CommitEntriesStalenessFieldEvent | CommitChecksumFieldEvent | CommitRankFieldEvent | CommitProposerFieldEvent | CommitExclusionsAuthorFieldEvent | CommitExclusionsIterationFieldEvent | CommitOlderParentsFieldEvent | CommitSignatureFieldEvent> {
    return streamMessage(buf, Commit.codec(), opts)
  }
}

export interface Leave {
  runId: Uint8Array<ArrayBuffer>
  iteration: bigint
  author: Uint8Array<ArrayBuffer>
  signature: Uint8Array<ArrayBuffer>
}

export namespace Leave {
  let _codec: Codec<Leave>

  export const codec = (): Codec<Leave> => {
    if (_codec == null) {
      _codec = message<Leave>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.runId != null && obj.runId.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.runId)
        }

        if ((obj.iteration != null && obj.iteration !== 0n)) {
          w.uint32(16)
          w.uint64(obj.iteration)
        }

        if ((obj.author != null && obj.author.byteLength > 0)) {
          w.uint32(26)
          w.bytes(obj.author)
        }

        if ((obj.signature != null && obj.signature.byteLength > 0)) {
          w.uint32(34)
          w.bytes(obj.signature)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          runId: uint8ArrayAlloc(0),
          iteration: 0n,
          author: uint8ArrayAlloc(0),
          signature: uint8ArrayAlloc(0)
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.runId = reader.bytes()
              break
            }
            case 2: {
              obj.iteration = reader.uint64()
              break
            }
            case 3: {
              obj.author = reader.bytes()
              break
            }
            case 4: {
              obj.signature = reader.bytes()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.runId`,
                value: reader.bytes()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.iteration`,
                value: reader.uint64()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.author`,
                value: reader.bytes()
              }
              break
            }
            case 4: {
              yield {
                field: `${prefix}.signature`,
                value: reader.bytes()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface LeaveRunIdFieldEvent {
    field: '$.runId'
    value: Uint8Array<ArrayBuffer>
  }

  export interface LeaveIterationFieldEvent {
    field: '$.iteration'
    value: bigint
  }

  export interface LeaveAuthorFieldEvent {
    field: '$.author'
    value: Uint8Array<ArrayBuffer>
  }

  export interface LeaveSignatureFieldEvent {
    field: '$.signature'
    value: Uint8Array<ArrayBuffer>
  }

  export function encode (obj: Partial<Leave>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, Leave.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Leave>): Leave {
    return decodeMessage(buf, Leave.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Leave>): Generator<LeaveRunIdFieldEvent | LeaveIterationFieldEvent | LeaveAuthorFieldEvent | LeaveSignatureFieldEvent> {
    return streamMessage(buf, Leave.codec(), opts)
  }
}

export interface Heartbeat {
  runId: Uint8Array<ArrayBuffer>
  iteration: bigint
  checksum: Uint8Array<ArrayBuffer>
  joinedAt: bigint
  author: Uint8Array<ArrayBuffer>
  signature: Uint8Array<ArrayBuffer>
}

export namespace Heartbeat {
  let _codec: Codec<Heartbeat>

  export const codec = (): Codec<Heartbeat> => {
    if (_codec == null) {
      _codec = message<Heartbeat>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.runId != null && obj.runId.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.runId)
        }

        if ((obj.iteration != null && obj.iteration !== 0n)) {
          w.uint32(16)
          w.uint64(obj.iteration)
        }

        if ((obj.checksum != null && obj.checksum.byteLength > 0)) {
          w.uint32(26)
          w.bytes(obj.checksum)
        }

        if ((obj.joinedAt != null && obj.joinedAt !== 0n)) {
          w.uint32(32)
          w.uint64(obj.joinedAt)
        }

        if ((obj.author != null && obj.author.byteLength > 0)) {
          w.uint32(42)
          w.bytes(obj.author)
        }

        if ((obj.signature != null && obj.signature.byteLength > 0)) {
          w.uint32(50)
          w.bytes(obj.signature)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          runId: uint8ArrayAlloc(0),
          iteration: 0n,
          checksum: uint8ArrayAlloc(0),
          joinedAt: 0n,
          author: uint8ArrayAlloc(0),
          signature: uint8ArrayAlloc(0)
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.runId = reader.bytes()
              break
            }
            case 2: {
              obj.iteration = reader.uint64()
              break
            }
            case 3: {
              obj.checksum = reader.bytes()
              break
            }
            case 4: {
              obj.joinedAt = reader.uint64()
              break
            }
            case 5: {
              obj.author = reader.bytes()
              break
            }
            case 6: {
              obj.signature = reader.bytes()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.runId`,
                value: reader.bytes()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.iteration`,
                value: reader.uint64()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.checksum`,
                value: reader.bytes()
              }
              break
            }
            case 4: {
              yield {
                field: `${prefix}.joinedAt`,
                value: reader.uint64()
              }
              break
            }
            case 5: {
              yield {
                field: `${prefix}.author`,
                value: reader.bytes()
              }
              break
            }
            case 6: {
              yield {
                field: `${prefix}.signature`,
                value: reader.bytes()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface HeartbeatRunIdFieldEvent {
    field: '$.runId'
    value: Uint8Array<ArrayBuffer>
  }

  export interface HeartbeatIterationFieldEvent {
    field: '$.iteration'
    value: bigint
  }

  export interface HeartbeatChecksumFieldEvent {
    field: '$.checksum'
    value: Uint8Array<ArrayBuffer>
  }

  export interface HeartbeatJoinedAtFieldEvent {
    field: '$.joinedAt'
    value: bigint
  }

  export interface HeartbeatAuthorFieldEvent {
    field: '$.author'
    value: Uint8Array<ArrayBuffer>
  }

  export interface HeartbeatSignatureFieldEvent {
    field: '$.signature'
    value: Uint8Array<ArrayBuffer>
  }

  export function encode (obj: Partial<Heartbeat>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, Heartbeat.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Heartbeat>): Heartbeat {
    return decodeMessage(buf, Heartbeat.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Heartbeat>): Generator<HeartbeatRunIdFieldEvent | HeartbeatIterationFieldEvent | HeartbeatChecksumFieldEvent | HeartbeatJoinedAtFieldEvent | HeartbeatAuthorFieldEvent | HeartbeatSignatureFieldEvent> {
    return streamMessage(buf, Heartbeat.codec(), opts)
  }
}

export interface Proof {
  runId: Uint8Array<ArrayBuffer>
  iteration: bigint
  commitHash: Uint8Array<ArrayBuffer>
  accused: Uint8Array<ArrayBuffer>
  author: Uint8Array<ArrayBuffer>
  signature: Uint8Array<ArrayBuffer>
}

export namespace Proof {
  let _codec: Codec<Proof>

  export const codec = (): Codec<Proof> => {
    if (_codec == null) {
      _codec = message<Proof>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.runId != null && obj.runId.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.runId)
        }

        if ((obj.iteration != null && obj.iteration !== 0n)) {
          w.uint32(16)
          w.uint64(obj.iteration)
        }

        if ((obj.commitHash != null && obj.commitHash.byteLength > 0)) {
          w.uint32(26)
          w.bytes(obj.commitHash)
        }

        if ((obj.accused != null && obj.accused.byteLength > 0)) {
          w.uint32(34)
          w.bytes(obj.accused)
        }

        if ((obj.author != null && obj.author.byteLength > 0)) {
          w.uint32(42)
          w.bytes(obj.author)
        }

        if ((obj.signature != null && obj.signature.byteLength > 0)) {
          w.uint32(50)
          w.bytes(obj.signature)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          runId: uint8ArrayAlloc(0),
          iteration: 0n,
          commitHash: uint8ArrayAlloc(0),
          accused: uint8ArrayAlloc(0),
          author: uint8ArrayAlloc(0),
          signature: uint8ArrayAlloc(0)
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.runId = reader.bytes()
              break
            }
            case 2: {
              obj.iteration = reader.uint64()
              break
            }
            case 3: {
              obj.commitHash = reader.bytes()
              break
            }
            case 4: {
              obj.accused = reader.bytes()
              break
            }
            case 5: {
              obj.author = reader.bytes()
              break
            }
            case 6: {
              obj.signature = reader.bytes()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.runId`,
                value: reader.bytes()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.iteration`,
                value: reader.uint64()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.commitHash`,
                value: reader.bytes()
              }
              break
            }
            case 4: {
              yield {
                field: `${prefix}.accused`,
                value: reader.bytes()
              }
              break
            }
            case 5: {
              yield {
                field: `${prefix}.author`,
                value: reader.bytes()
              }
              break
            }
            case 6: {
              yield {
                field: `${prefix}.signature`,
                value: reader.bytes()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface ProofRunIdFieldEvent {
    field: '$.runId'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ProofIterationFieldEvent {
    field: '$.iteration'
    value: bigint
  }

  export interface ProofCommitHashFieldEvent {
    field: '$.commitHash'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ProofAccusedFieldEvent {
    field: '$.accused'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ProofAuthorFieldEvent {
    field: '$.author'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ProofSignatureFieldEvent {
    field: '$.signature'
    value: Uint8Array<ArrayBuffer>
  }

  export function encode (obj: Partial<Proof>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, Proof.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Proof>): Proof {
    return decodeMessage(buf, Proof.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<Proof>): Generator<ProofRunIdFieldEvent | ProofIterationFieldEvent | ProofCommitHashFieldEvent | ProofAccusedFieldEvent | ProofAuthorFieldEvent | ProofSignatureFieldEvent> {
    return streamMessage(buf, Proof.codec(), opts)
  }
}

export interface RunSpecRequest {
  runId: Uint8Array<ArrayBuffer>
}

export namespace RunSpecRequest {
  let _codec: Codec<RunSpecRequest>

  export const codec = (): Codec<RunSpecRequest> => {
    if (_codec == null) {
      _codec = message<RunSpecRequest>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.runId != null && obj.runId.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.runId)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          runId: uint8ArrayAlloc(0)
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.runId = reader.bytes()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.runId`,
                value: reader.bytes()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface RunSpecRequestRunIdFieldEvent {
    field: '$.runId'
    value: Uint8Array<ArrayBuffer>
  }

  export function encode (obj: Partial<RunSpecRequest>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, RunSpecRequest.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<RunSpecRequest>): RunSpecRequest {
    return decodeMessage(buf, RunSpecRequest.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<RunSpecRequest>): Generator<RunSpecRequestRunIdFieldEvent> {
    return streamMessage(buf, RunSpecRequest.codec(), opts)
  }
}

export interface RunSpecResponse {
  specJson: string
}

export namespace RunSpecResponse {
  let _codec: Codec<RunSpecResponse>

  export const codec = (): Codec<RunSpecResponse> => {
    if (_codec == null) {
      _codec = message<RunSpecResponse>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.specJson != null && obj.specJson !== '')) {
          w.uint32(10)
          w.string(obj.specJson)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          specJson: ''
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.specJson = reader.string()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.specJson`,
                value: reader.string()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface RunSpecResponseSpecJsonFieldEvent {
    field: '$.specJson'
    value: string
  }

  export function encode (obj: Partial<RunSpecResponse>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, RunSpecResponse.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<RunSpecResponse>): RunSpecResponse {
    return decodeMessage(buf, RunSpecResponse.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<RunSpecResponse>): Generator<RunSpecResponseSpecJsonFieldEvent> {
    return streamMessage(buf, RunSpecResponse.codec(), opts)
  }
}

export interface SnapshotRequest {
  runId: Uint8Array<ArrayBuffer>
  chunk: number
  chunkSize: number
  iteration: bigint
  exact: boolean
}

export namespace SnapshotRequest {
  let _codec: Codec<SnapshotRequest>

  export const codec = (): Codec<SnapshotRequest> => {
    if (_codec == null) {
      _codec = message<SnapshotRequest>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.runId != null && obj.runId.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.runId)
        }

        if ((obj.chunk != null && obj.chunk !== 0)) {
          w.uint32(16)
          w.uint32(obj.chunk)
        }

        if ((obj.chunkSize != null && obj.chunkSize !== 0)) {
          w.uint32(24)
          w.uint32(obj.chunkSize)
        }

        if ((obj.iteration != null && obj.iteration !== 0n)) {
          w.uint32(32)
          w.uint64(obj.iteration)
        }

        if ((obj.exact != null && obj.exact !== false)) {
          w.uint32(40)
          w.bool(obj.exact)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          runId: uint8ArrayAlloc(0),
          chunk: 0,
          chunkSize: 0,
          iteration: 0n,
          exact: false
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.runId = reader.bytes()
              break
            }
            case 2: {
              obj.chunk = reader.uint32()
              break
            }
            case 3: {
              obj.chunkSize = reader.uint32()
              break
            }
            case 4: {
              obj.iteration = reader.uint64()
              break
            }
            case 5: {
              obj.exact = reader.bool()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.runId`,
                value: reader.bytes()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.chunk`,
                value: reader.uint32()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.chunkSize`,
                value: reader.uint32()
              }
              break
            }
            case 4: {
              yield {
                field: `${prefix}.iteration`,
                value: reader.uint64()
              }
              break
            }
            case 5: {
              yield {
                field: `${prefix}.exact`,
                value: reader.bool()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface SnapshotRequestRunIdFieldEvent {
    field: '$.runId'
    value: Uint8Array<ArrayBuffer>
  }

  export interface SnapshotRequestChunkFieldEvent {
    field: '$.chunk'
    value: number
  }

  export interface SnapshotRequestChunkSizeFieldEvent {
    field: '$.chunkSize'
    value: number
  }

  export interface SnapshotRequestIterationFieldEvent {
    field: '$.iteration'
    value: bigint
  }

  export interface SnapshotRequestExactFieldEvent {
    field: '$.exact'
    value: boolean
  }

  export function encode (obj: Partial<SnapshotRequest>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, SnapshotRequest.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<SnapshotRequest>): SnapshotRequest {
    return decodeMessage(buf, SnapshotRequest.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<SnapshotRequest>): Generator<SnapshotRequestRunIdFieldEvent | SnapshotRequestChunkFieldEvent | SnapshotRequestChunkSizeFieldEvent | SnapshotRequestIterationFieldEvent | SnapshotRequestExactFieldEvent> {
    return streamMessage(buf, SnapshotRequest.codec(), opts)
  }
}

export interface SnapshotResponse {
  iteration: bigint
  checksum: Uint8Array<ArrayBuffer>
  totalChunks: number
  data: Uint8Array<ArrayBuffer>
  chunkHash: Uint8Array<ArrayBuffer>
}

export namespace SnapshotResponse {
  let _codec: Codec<SnapshotResponse>

  export const codec = (): Codec<SnapshotResponse> => {
    if (_codec == null) {
      _codec = message<SnapshotResponse>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.iteration != null && obj.iteration !== 0n)) {
          w.uint32(8)
          w.uint64(obj.iteration)
        }

        if ((obj.checksum != null && obj.checksum.byteLength > 0)) {
          w.uint32(18)
          w.bytes(obj.checksum)
        }

        if ((obj.totalChunks != null && obj.totalChunks !== 0)) {
          w.uint32(24)
          w.uint32(obj.totalChunks)
        }

        if ((obj.data != null && obj.data.byteLength > 0)) {
          w.uint32(34)
          w.bytes(obj.data)
        }

        if ((obj.chunkHash != null && obj.chunkHash.byteLength > 0)) {
          w.uint32(42)
          w.bytes(obj.chunkHash)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          iteration: 0n,
          checksum: uint8ArrayAlloc(0),
          totalChunks: 0,
          data: uint8ArrayAlloc(0),
          chunkHash: uint8ArrayAlloc(0)
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.iteration = reader.uint64()
              break
            }
            case 2: {
              obj.checksum = reader.bytes()
              break
            }
            case 3: {
              obj.totalChunks = reader.uint32()
              break
            }
            case 4: {
              obj.data = reader.bytes()
              break
            }
            case 5: {
              obj.chunkHash = reader.bytes()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.iteration`,
                value: reader.uint64()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.checksum`,
                value: reader.bytes()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.totalChunks`,
                value: reader.uint32()
              }
              break
            }
            case 4: {
              yield {
                field: `${prefix}.data`,
                value: reader.bytes()
              }
              break
            }
            case 5: {
              yield {
                field: `${prefix}.chunkHash`,
                value: reader.bytes()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface SnapshotResponseIterationFieldEvent {
    field: '$.iteration'
    value: bigint
  }

  export interface SnapshotResponseChecksumFieldEvent {
    field: '$.checksum'
    value: Uint8Array<ArrayBuffer>
  }

  export interface SnapshotResponseTotalChunksFieldEvent {
    field: '$.totalChunks'
    value: number
  }

  export interface SnapshotResponseDataFieldEvent {
    field: '$.data'
    value: Uint8Array<ArrayBuffer>
  }

  export interface SnapshotResponseChunkHashFieldEvent {
    field: '$.chunkHash'
    value: Uint8Array<ArrayBuffer>
  }

  export function encode (obj: Partial<SnapshotResponse>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, SnapshotResponse.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<SnapshotResponse>): SnapshotResponse {
    return decodeMessage(buf, SnapshotResponse.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<SnapshotResponse>): Generator<SnapshotResponseIterationFieldEvent | SnapshotResponseChecksumFieldEvent | SnapshotResponseTotalChunksFieldEvent | SnapshotResponseDataFieldEvent | SnapshotResponseChunkHashFieldEvent> {
    return streamMessage(buf, SnapshotResponse.codec(), opts)
  }
}

export interface CommitsRequest {
  runId: Uint8Array<ArrayBuffer>
  fromIteration: bigint
  max: number
}

export namespace CommitsRequest {
  let _codec: Codec<CommitsRequest>

  export const codec = (): Codec<CommitsRequest> => {
    if (_codec == null) {
      _codec = message<CommitsRequest>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.runId != null && obj.runId.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.runId)
        }

        if ((obj.fromIteration != null && obj.fromIteration !== 0n)) {
          w.uint32(16)
          w.uint64(obj.fromIteration)
        }

        if ((obj.max != null && obj.max !== 0)) {
          w.uint32(24)
          w.uint32(obj.max)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          runId: uint8ArrayAlloc(0),
          fromIteration: 0n,
          max: 0
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.runId = reader.bytes()
              break
            }
            case 2: {
              obj.fromIteration = reader.uint64()
              break
            }
            case 3: {
              obj.max = reader.uint32()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.runId`,
                value: reader.bytes()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.fromIteration`,
                value: reader.uint64()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.max`,
                value: reader.uint32()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface CommitsRequestRunIdFieldEvent {
    field: '$.runId'
    value: Uint8Array<ArrayBuffer>
  }

  export interface CommitsRequestFromIterationFieldEvent {
    field: '$.fromIteration'
    value: bigint
  }

  export interface CommitsRequestMaxFieldEvent {
    field: '$.max'
    value: number
  }

  export function encode (obj: Partial<CommitsRequest>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, CommitsRequest.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<CommitsRequest>): CommitsRequest {
    return decodeMessage(buf, CommitsRequest.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<CommitsRequest>): Generator<CommitsRequestRunIdFieldEvent | CommitsRequestFromIterationFieldEvent | CommitsRequestMaxFieldEvent> {
    return streamMessage(buf, CommitsRequest.codec(), opts)
  }
}

export interface CommitsResponse {
  commits: Uint8Array<ArrayBuffer>[]
}

export namespace CommitsResponse {
  let _codec: Codec<CommitsResponse>

  export const codec = (): Codec<CommitsResponse> => {
    if (_codec == null) {
      _codec = message<CommitsResponse>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if (obj.commits != null && obj.commits.length > 0) {
          for (const value of obj.commits) {
            w.uint32(10)
            w.bytes(value)
          }
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          commits: []
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              if (opts.limits?.commits != null && obj.commits.length === opts.limits.commits) {
                throw new MaxLengthError('Decode error - repeated field "commits" had too many elements')
              }

              obj.commits.push(reader.bytes())
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const obj = {
          commits: 0
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              if (opts.limits?.commits != null && obj.commits === opts.limits.commits) {
                throw new MaxLengthError('Streaming decode error - repeated field "commits" had too many elements')
              }

              yield {
                field: `${prefix}.commits[]`,
                index: obj.commits,
                value: reader.bytes()
              }

              obj.commits++

              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface CommitsResponseCommitsFieldEvent {
    field: '$.commits[]'
    index: number
    value: Uint8Array<ArrayBuffer>
  }

  export function encode (obj: Partial<CommitsResponse>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, CommitsResponse.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<CommitsResponse>): CommitsResponse {
    return decodeMessage(buf, CommitsResponse.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<CommitsResponse>): Generator<CommitsResponseCommitsFieldEvent> {
    return streamMessage(buf, CommitsResponse.codec(), opts)
  }
}

export interface ChecksumRequest {
  runId: Uint8Array<ArrayBuffer>
  iteration: bigint
}

export namespace ChecksumRequest {
  let _codec: Codec<ChecksumRequest>

  export const codec = (): Codec<ChecksumRequest> => {
    if (_codec == null) {
      _codec = message<ChecksumRequest>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.runId != null && obj.runId.byteLength > 0)) {
          w.uint32(10)
          w.bytes(obj.runId)
        }

        if ((obj.iteration != null && obj.iteration !== 0n)) {
          w.uint32(16)
          w.uint64(obj.iteration)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          runId: uint8ArrayAlloc(0),
          iteration: 0n
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.runId = reader.bytes()
              break
            }
            case 2: {
              obj.iteration = reader.uint64()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.runId`,
                value: reader.bytes()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.iteration`,
                value: reader.uint64()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface ChecksumRequestRunIdFieldEvent {
    field: '$.runId'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ChecksumRequestIterationFieldEvent {
    field: '$.iteration'
    value: bigint
  }

  export function encode (obj: Partial<ChecksumRequest>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, ChecksumRequest.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<ChecksumRequest>): ChecksumRequest {
    return decodeMessage(buf, ChecksumRequest.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<ChecksumRequest>): Generator<ChecksumRequestRunIdFieldEvent | ChecksumRequestIterationFieldEvent> {
    return streamMessage(buf, ChecksumRequest.codec(), opts)
  }
}

export interface ChecksumResponse {
  iteration: bigint
  checksum: Uint8Array<ArrayBuffer>
  known: boolean
}

export namespace ChecksumResponse {
  let _codec: Codec<ChecksumResponse>

  export const codec = (): Codec<ChecksumResponse> => {
    if (_codec == null) {
      _codec = message<ChecksumResponse>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.iteration != null && obj.iteration !== 0n)) {
          w.uint32(8)
          w.uint64(obj.iteration)
        }

        if ((obj.checksum != null && obj.checksum.byteLength > 0)) {
          w.uint32(18)
          w.bytes(obj.checksum)
        }

        if ((obj.known != null && obj.known !== false)) {
          w.uint32(24)
          w.bool(obj.known)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          iteration: 0n,
          checksum: uint8ArrayAlloc(0),
          known: false
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.iteration = reader.uint64()
              break
            }
            case 2: {
              obj.checksum = reader.bytes()
              break
            }
            case 3: {
              obj.known = reader.bool()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.iteration`,
                value: reader.uint64()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.checksum`,
                value: reader.bytes()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.known`,
                value: reader.bool()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface ChecksumResponseIterationFieldEvent {
    field: '$.iteration'
    value: bigint
  }

  export interface ChecksumResponseChecksumFieldEvent {
    field: '$.checksum'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ChecksumResponseKnownFieldEvent {
    field: '$.known'
    value: boolean
  }

  export function encode (obj: Partial<ChecksumResponse>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, ChecksumResponse.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<ChecksumResponse>): ChecksumResponse {
    return decodeMessage(buf, ChecksumResponse.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<ChecksumResponse>): Generator<ChecksumResponseIterationFieldEvent | ChecksumResponseChecksumFieldEvent | ChecksumResponseKnownFieldEvent> {
    return streamMessage(buf, ChecksumResponse.codec(), opts)
  }
}

export interface ExpertEntry {
  suffix: number
  peer: Uint8Array<ArrayBuffer>
  timestamp: bigint
  expiresAt: bigint
  signature: Uint8Array<ArrayBuffer>
}

export namespace ExpertEntry {
  let _codec: Codec<ExpertEntry>

  export const codec = (): Codec<ExpertEntry> => {
    if (_codec == null) {
      _codec = message<ExpertEntry>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if ((obj.suffix != null && obj.suffix !== 0)) {
          w.uint32(8)
          w.uint32(obj.suffix)
        }

        if ((obj.peer != null && obj.peer.byteLength > 0)) {
          w.uint32(18)
          w.bytes(obj.peer)
        }

        if ((obj.timestamp != null && obj.timestamp !== 0n)) {
          w.uint32(24)
          w.uint64(obj.timestamp)
        }

        if ((obj.expiresAt != null && obj.expiresAt !== 0n)) {
          w.uint32(32)
          w.uint64(obj.expiresAt)
        }

        if ((obj.signature != null && obj.signature.byteLength > 0)) {
          w.uint32(42)
          w.bytes(obj.signature)
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          suffix: 0,
          peer: uint8ArrayAlloc(0),
          timestamp: 0n,
          expiresAt: 0n,
          signature: uint8ArrayAlloc(0)
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              obj.suffix = reader.uint32()
              break
            }
            case 2: {
              obj.peer = reader.bytes()
              break
            }
            case 3: {
              obj.timestamp = reader.uint64()
              break
            }
            case 4: {
              obj.expiresAt = reader.uint64()
              break
            }
            case 5: {
              obj.signature = reader.bytes()
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              yield {
                field: `${prefix}.suffix`,
                value: reader.uint32()
              }
              break
            }
            case 2: {
              yield {
                field: `${prefix}.peer`,
                value: reader.bytes()
              }
              break
            }
            case 3: {
              yield {
                field: `${prefix}.timestamp`,
                value: reader.uint64()
              }
              break
            }
            case 4: {
              yield {
                field: `${prefix}.expiresAt`,
                value: reader.uint64()
              }
              break
            }
            case 5: {
              yield {
                field: `${prefix}.signature`,
                value: reader.bytes()
              }
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface ExpertEntrySuffixFieldEvent {
    field: '$.suffix'
    value: number
  }

  export interface ExpertEntryPeerFieldEvent {
    field: '$.peer'
    value: Uint8Array<ArrayBuffer>
  }

  export interface ExpertEntryTimestampFieldEvent {
    field: '$.timestamp'
    value: bigint
  }

  export interface ExpertEntryExpiresAtFieldEvent {
    field: '$.expiresAt'
    value: bigint
  }

  export interface ExpertEntrySignatureFieldEvent {
    field: '$.signature'
    value: Uint8Array<ArrayBuffer>
  }

  export function encode (obj: Partial<ExpertEntry>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, ExpertEntry.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<ExpertEntry>): ExpertEntry {
    return decodeMessage(buf, ExpertEntry.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<ExpertEntry>): Generator<ExpertEntrySuffixFieldEvent | ExpertEntryPeerFieldEvent | ExpertEntryTimestampFieldEvent | ExpertEntryExpiresAtFieldEvent | ExpertEntrySignatureFieldEvent> {
    return streamMessage(buf, ExpertEntry.codec(), opts)
  }
}

export interface ExpertRecord {
  entries: ExpertEntry[]
}

export namespace ExpertRecord {
  let _codec: Codec<ExpertRecord>

  export const codec = (): Codec<ExpertRecord> => {
    if (_codec == null) {
      _codec = message<ExpertRecord>((obj, w, opts = {}) => {
        if (opts.lengthDelimited !== false) {
          w.fork()
        }

        if (obj.entries != null && obj.entries.length > 0) {
          for (const value of obj.entries) {
            w.uint32(10)
            ExpertEntry.codec().encode(value, w)
          }
        }

        if (opts.lengthDelimited !== false) {
          w.ldelim()
        }
      }, (reader, length, opts = {}) => {
        const obj: any = {
          entries: []
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              if (opts.limits?.entries != null && obj.entries.length === opts.limits.entries) {
                throw new MaxLengthError('Decode error - repeated field "entries" had too many elements')
              }

              obj.entries.push(ExpertEntry.codec().decode(reader, reader.uint32(), {
                limits: opts.limits?.entries$
              }))
              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }

        return obj
      }, function * (reader, length, prefix, opts = {}) {
        const obj = {
          entries: 0
        }

        const end = length == null ? reader.len : reader.pos + length

        while (reader.pos < end) {
          const tag = reader.uint32()

          switch (tag >>> 3) {
            case 1: {
              if (opts.limits?.entries != null && obj.entries === opts.limits.entries) {
                throw new MaxLengthError('Streaming decode error - repeated field "entries" had too many elements')
              }

              for (const evt of ExpertEntry.codec().stream(reader, reader.uint32(), `${prefix}.entries[]`, {
                limits: opts.limits?.entries$
              })) {
                yield {
                  ...evt,
                  index: obj.entries
                }
              }

              obj.entries++

              break
            }
            default: {
              reader.skipType(tag & 7)
              break
            }
          }
        }
      })
    }

    return _codec
  }

  export interface ExpertRecordEntriesSuffixFieldEvent {
    field: '$.entries[].suffix'
    value: number
    index: number
  }

  export interface ExpertRecordEntriesPeerFieldEvent {
    field: '$.entries[].peer'
    value: Uint8Array<ArrayBuffer>
    index: number
  }

  export interface ExpertRecordEntriesTimestampFieldEvent {
    field: '$.entries[].timestamp'
    value: bigint
    index: number
  }

  export interface ExpertRecordEntriesExpiresAtFieldEvent {
    field: '$.entries[].expiresAt'
    value: bigint
    index: number
  }

  export interface ExpertRecordEntriesSignatureFieldEvent {
    field: '$.entries[].signature'
    value: Uint8Array<ArrayBuffer>
    index: number
  }

  export function encode (obj: Partial<ExpertRecord>): Uint8Array<ArrayBuffer> {
    return encodeMessage(obj, ExpertRecord.codec())
  }

  export function decode (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<ExpertRecord>): ExpertRecord {
    return decodeMessage(buf, ExpertRecord.codec(), opts)
  }

  export function stream (buf: Uint8Array | Uint8ArrayList, opts?: DecodeOptions<ExpertRecord>): Generator<ExpertRecordEntriesSuffixFieldEvent | ExpertRecordEntriesPeerFieldEvent | ExpertRecordEntriesTimestampFieldEvent | ExpertRecordEntriesExpiresAtFieldEvent | ExpertRecordEntriesSignatureFieldEvent> {
    return streamMessage(buf, ExpertRecord.codec(), opts)
  }
}
