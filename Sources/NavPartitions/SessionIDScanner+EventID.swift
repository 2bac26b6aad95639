extension SessionIDScanner {
    /// The top-level `session_id` and `event_id` of an event line, without decoding it: what a
    /// distributed run needs of a line to route it (`SplitRouter`). Exact for every valid event,
    /// as `sessionID(in:)` is; `nil` for anything it is not sure of (the line is then decoded).
    package static func sessionAndEventID(in line: UnsafeBufferPointer<UInt8>) -> (session: Range<Int>, event: Range<Int>)? {
        canonicalIDs(in: line) ?? scannedIDs(in: line)
    }

    /// Both ids of any line: a walk over its top-level members, up to the second of the two.
    static func scannedIDs(in line: UnsafeBufferPointer<UInt8>) -> (session: Range<Int>, event: Range<Int>)? {
        var scan = Scan(bytes: line)
        var session: Range<Int>?
        var event: Range<Int>?
        scan.skipSpace()
        guard scan.take(UInt8(ascii: "{")) else { return nil }
        while true {
            scan.skipSpace()
            guard let key = scan.plainString() else { return nil }
            scan.skipSpace()
            guard scan.take(UInt8(ascii: ":")) else { return nil }
            scan.skipSpace()
            if session == nil, scan.equals(key, "session_id") {
                guard let value = scan.plainString() else { return nil }
                session = value
            } else if event == nil, scan.equals(key, "event_id") {
                guard let value = scan.plainString() else { return nil }
                event = value
            } else {
                guard scan.skipValue() else { return nil }
            }
            if let session, let event { return (session, event) }
            scan.skipSpace()
            guard scan.take(UInt8(ascii: ",")) else { return nil }
        }
    }
}
