package import NavEvents
package import NavInput
import NavJSON
package import NavReplay
import NavResults
package import NavRuns

/// Decodes the records of one partition as it is read back (`SpillPartitions.read`): the
/// decoder, string cache and expansion buffer of one job, and the lines found invalid.
package final class PartitionDecoder {
    package let corrupt: InputError
    package let files: [String]
    package let keepQuarantine: Bool
    // The mappings' bytes, not the `MappedInput`s (which the caller keeps alive): retaining one
    // per line, from every job at once, was 2.4% of a 1 GB audit.
    package let mappedBytes: [UnsafeBufferPointer<UInt8>?]
    package let decoder = EventDecoder()
    package let strings = StringCache()
    package let expanded = ByteBuffer(capacity: 4096)
    /// Routed lines that are not valid events, as findings and quarantine records.
    package var invalid: [Finding] = []
    package var quarantined: [(location: LineLocation, record: [UInt8])] = []

    package init(corrupt: InputError, files: [String], mapped: [MappedInput?], keepQuarantine: Bool) {
        self.corrupt = corrupt
        self.files = files
        self.keepQuarantine = keepQuarantine
        mappedBytes = mapped.map { $0?.bytes }
    }

    /// The body of a mapped line's reference record (form 4), if it lies inside its input.
    package func mappedLine(_ record: SpillRecord) -> UnsafeBufferPointer<UInt8>? {
        let file = Int(record.location.file)
        let fields = SpillRecord.fieldsOffset
        let offset = Int(truncatingIfNeeded: record.bytes.load(UInt64.self, at: fields))
        let count = Int(record.bytes.load(UInt32.self, at: fields + 8))
        guard record.bytes.count == 4 + SpillPartitions.referenceBytes, mappedBytes.indices.contains(file), let input = mappedBytes[file],
            offset >= 0, offset <= input.count, count <= input.count - offset
        else { return nil }
        return UnsafeBufferPointer(rebasing: input[offset..<(offset + count)])
    }

    /// The event of one record (length field included), or `nil` for a routed line that is
    /// not a valid event (then recorded as a finding).
    package func decode(_ spilled: SpillRecord, location: LineLocation) throws(InputError) -> DecodedEvent? {
        let record = spilled.bytes
        let form = spilled.form
        let fields = SpillRecord.fieldsOffset
        var body = UnsafeBufferPointer(rebasing: record[fields...])
        if form == 0 || form == 1 {
            guard record.count >= fields + SpillPartitions.hashBytes else { throw corrupt }
            body = UnsafeBufferPointer(rebasing: record[(fields + SpillPartitions.hashBytes)...])
        } else if form == 5 {
            // A line in shorthand, expanded to its own bytes.
            expanded.removeAll()
            guard expanded.append(upTo: LineShorthand.expandedCapacity(body.count), { LineShorthand.expand(body, into: $0) }) != nil
            else { throw corrupt }
            body = expanded.byteBuffer
        } else if form == 4 {
            // A line of a mapped input, decoded in place.
            guard let line = mappedLine(spilled) else { throw corrupt }
            body = line
        }
        switch form {
        case 1:
            guard let event = SpillCodec.decode(body, strings: strings) else { throw corrupt }
            return DecodedEvent(
                event, identity: record.load(UInt64.self, at: fields), contentIdentity: record.load(UInt64.self, at: fields + 8),
                eventIDHash: record.load(UInt64.self, at: fields + 16), correlationIDHash: record.load(UInt64.self, at: fields + 24))
        case 0:
            guard case .success(var event) = decoder.decode(body, names: strings) else { throw corrupt }
            event.identity = record.load(UInt64.self, at: fields)
            event.contentIdentity = record.load(UInt64.self, at: fields + 8)
            return event
        case 2, 3, 4, 5:
            switch decoder.decode(body, names: strings) {
            case .success(let event): return event
            case .failure(let error):
                let reason = InvalidLine.reason(error, unterminated: form == 3)
                invalid.append(InvalidLine.finding(at: location, message: reason.message))
                if keepQuarantine {
                    let file = files.indices.contains(Int(location.file)) ? files[Int(location.file)] : ""
                    quarantined.append(
                        (
                            location,
                            QuarantineWriter.record(file: file, line: location.line, field: reason.field, reason: reason.message, raw: body)
                        ))
                }
                return nil
            }
        default: throw corrupt
        }
    }
}
