#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
package import NavEvents
import NavJSON
package import NavReplay
package import NavRuns
package import NavInput

/// The records a long session's passes sort on disk (`NavEngine.LongSession`), and their binary
/// forms.
package enum LongSessionRecords {
    /// A line with the fields of the audit's content order first (`SessionAuditor.precedes`:
    /// seq, the instant, the event id, the identity, the location), then the line
    /// (`encodeLine`): `[i64 seq][i64 seconds][u64 attoseconds][u32 length][event id][u64
    /// identity][i32 file][i64 line]` and the line.
    package enum Content {
        package static func encode(_ line: SessionLine, into buffer: ByteBuffer) {
            let event = line.decoded.event
            buffer.append(event.seq)
            buffer.append(event.timestamp.epochSeconds)
            buffer.append(event.timestamp.attoseconds)
            buffer.appendLengthPrefixed(event.eventID)
            buffer.append(line.decoded.identity)
            buffer.append(line.location.file)
            buffer.append(line.location.line)
            encodeLine(line, into: buffer)
        }

        /// `SessionAuditor.precedes`, on two records' bytes.
        package static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
            let seqA = a.int64(at: 0)
            let seqB = b.int64(at: 0)
            if seqA != seqB { return seqA < seqB }
            let instantA = (a.int64(at: 8), a.uint64(at: 16))
            let instantB = (b.int64(at: 8), b.uint64(at: 16))
            if instantA != instantB { return instantA < instantB }
            let idA = UnsafeBufferPointer(rebasing: a[28..<(28 + Int(a.uint32(at: 24)))])
            let idB = UnsafeBufferPointer(rebasing: b[28..<(28 + Int(b.uint32(at: 24)))])
            if !idA.bytesEqual(idB) {
                // As `String`s compare: ids equal but for their normalization are one id here.
                let left = String(decoding: idA, as: UTF8.self)
                let right = String(decoding: idB, as: UTF8.self)
                if left != right { return left.utf8Precedes(right) }
            }
            let restA = 28 + idA.count
            let restB = 28 + idB.count
            let identityA = a.uint64(at: restA)
            let identityB = b.uint64(at: restB)
            if identityA != identityB { return identityA < identityB }
            return (a.int32(at: restA + 8), a.int64(at: restA + 12))
                < (b.int32(at: restB + 8), b.int64(at: restB + 12))
        }

        /// The identity and the encoded line of a record.
        package static func parts(_ record: UnsafeBufferPointer<UInt8>) throws -> (identity: UInt64, line: UnsafeBufferPointer<UInt8>) {
            var reader = FieldReader(record)
            _ = try reader.bytes(24)
            _ = try reader.bytes(Int(try reader.uint32()))
            let identity = try reader.uint64()
            _ = try reader.bytes(12)
            return (identity, try reader.bytes(reader.remaining))
        }
    }

    /// A line, as a long session keeps it: its location, its four hashes, and its event in
    /// `SpillCodec`'s form (or, for an event with a snapshot, its canonical JSON).
    package static func encodeLine(_ line: SessionLine, into buffer: ByteBuffer) {
        buffer.append(line.location.file)
        buffer.append(line.location.line)
        buffer.append(line.decoded.identity)
        buffer.append(line.decoded.contentIdentity)
        buffer.append(line.decoded.eventIDHash)
        buffer.append(line.decoded.correlationIDHash)
        let form = buffer.count
        buffer.append(UInt8(1))
        if !SpillCodec.encode(line.decoded.event, into: buffer) {
            buffer.patch(UInt8(0), at: form)
            var json = JSONWriter(reservingCapacity: 512)
            line.decoded.event.write(to: &json)
            buffer.append(json.bytes)
        }
    }

    package static func decodeLine(_ bytes: UnsafeBufferPointer<UInt8>, strings: StringCache) throws -> SessionLine {
        var reader = FieldReader(bytes)
        let location = LineLocation(file: try reader.int32(), line: try reader.int64())
        let identity = try reader.uint64()
        let contentIdentity = try reader.uint64()
        let eventIDHash = try reader.uint64()
        let correlationIDHash = try reader.uint64()
        let form = try reader.uint8()
        let body = try reader.bytes(reader.remaining)
        let event: NavigationEvent
        if form == 1 {
            guard let decoded = SpillCodec.decode(body, strings: strings) else { throw FieldReader.corruptRecord }
            event = decoded
        } else {
            guard form == 0, case .success(let decoded) = EventDecoder().decode(body, names: strings) else {
                throw FieldReader.corruptRecord
            }
            event = decoded.event
        }
        return SessionLine(
            decoded: DecodedEvent(
                event, identity: identity, contentIdentity: contentIdentity, eventIDHash: eventIDHash,
                correlationIDHash: correlationIDHash),
            location: location)
    }

    /// One occurrence of a text (an event id or a correlation id) at a place in content order:
    /// `[u64 hash][i64 position][u32 length][text]` and, for an event id, its event as a witness
    /// names it. Sorted by the text (its hash first), then the place: each text's occurrences
    /// together, first to last.
    package struct Occurrence {
        package var hash: UInt64
        package var text: [UInt8]
        package var position: Int64
        package var witness: EventReference?

        package static func encode(hash: UInt64, text: String, position: Int64, witness: EventReference?, into buffer: ByteBuffer) {
            buffer.append(hash)
            buffer.append(position)
            buffer.appendLengthPrefixed(text)
            appendWitness(witness, to: buffer)
        }

        package static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
            let hashA = a.uint64(at: 0)
            let hashB = b.uint64(at: 0)
            if hashA != hashB { return hashA < hashB }
            let textA = text(of: a)
            let textB = text(of: b)
            if !textA.bytesEqual(textB) { return textA.bytesPrecede(textB) }
            return a.int64(at: 8) < b.int64(at: 8)
        }

        package static func text(of record: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: record[20..<(20 + Int(record.uint32(at: 16)))])
        }

        package static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Occurrence {
            var reader = FieldReader(bytes)
            let hash = try reader.uint64()
            let position = try reader.int64()
            let text = Array(try reader.bytes(Int(try reader.uint32())))
            let witness = try reader.witness()
            guard reader.isAtEnd else { throw FieldReader.corruptRecord }
            return Occurrence(hash: hash, text: text, position: position, witness: witness)
        }

        /// Whether `record` is an occurrence of this one's text.
        package func sameText(as record: UnsafeBufferPointer<UInt8>) -> Bool {
            record.uint64(at: 0) == hash && text.withUnsafeBufferPointer { $0.bytesEqual(Occurrence.text(of: record)) }
        }
    }

    /// What a line at a place in content order has besides itself: `[i64 position][u8 kind]`
    /// and a witness. An `event_id.conflict` (with the earlier line of its id as the witness), the
    /// first occurrence of its id, or the end of its correlation group.
    package struct Mark {
        package enum Kind: UInt8 {
            /// An earlier line of the session has its event id, with another content.
            case conflict = 0
            /// The first line of its event id in the session: a conflict when an earlier session
            /// owns the id (`SessionAuditOptions.earlierOccurrences`, which each audit may give).
            case firstOfItsID = 1
            /// The last folded line of its correlation group.
            case endsGroup = 2
        }

        package var position: Int64
        package var kind: Kind
        package var witness: EventReference?

        package static func encode(position: Int64, kind: Kind, witness: EventReference?, into buffer: ByteBuffer) {
            buffer.append(position)
            buffer.append(kind.rawValue)
            appendWitness(witness, to: buffer)
        }

        package static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
            a.int64(at: 0) < b.int64(at: 0)
        }

        package static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Mark {
            var reader = FieldReader(bytes)
            let position = try reader.int64()
            guard let kind = Kind(rawValue: try reader.uint8()) else { throw FieldReader.corruptRecord }
            let witness = try reader.witness()
            guard reader.isAtEnd else { throw FieldReader.corruptRecord }
            return Mark(position: position, kind: kind, witness: witness)
        }
    }

    package static func appendWitness(_ witness: EventReference?, to buffer: ByteBuffer) {
        guard let witness else {
            buffer.append(UInt8(0))
            return
        }
        buffer.append(UInt8(witness.location == nil ? 1 : 2))
        buffer.append(witness.seq)
        buffer.appendLengthPrefixed(witness.eventID)
        buffer.appendLengthPrefixed(witness.name.rawValue)
        if let location = witness.location {
            buffer.append(location.file)
            buffer.append(location.line)
        }
    }
}

extension FieldReader {
    /// What a long session's record that does not decode is reported as.
    package static let corruptRecord = InputError(code: .unreadable, path: "", message: "a long session's spill record does not decode")

    package init(_ bytes: UnsafeBufferPointer<UInt8>) { self.init(bytes, corrupt: Self.corruptRecord) }

    /// An event reference as `LongSessionRecords.appendWitness` wrote it.
    package mutating func witness() throws -> EventReference? {
        let form = try int(UInt8.self)
        guard form != 0 else { return nil }
        let seq = try int(Int64.self)
        let eventID = try string()
        guard let name = EventName(rawValue: try string()), form <= 2 else { throw corrupt }
        let location = form == 2 ? LineLocation(file: try int(Int32.self), line: try int(Int64.self)) : nil
        return EventReference(seq: seq, eventID: eventID, name: name, location: location)
    }
}
