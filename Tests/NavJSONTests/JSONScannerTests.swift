import NavJSON
import Testing

/// `JSONScanner.skipValue` (how the decoder validates an unknown field's value, nested to any
/// depth) and `JSONValue.parse` (model files, snapshots) against one table of texts: each must
/// reject what RFC 8259 rejects at every depth, not only at the top level, where the decoder's
/// own loop reads the event's members.
@Suite struct JSONScannerTests {
    /// Texts that are not JSON, each with the byte (1-based) where the problem is found.
    static let invalid: [(text: String, byte: Int)] = [
        (#"{"a":1,}"#, 8),
        (#"[1,]"#, 4),
        (#"{"extra":{"a":1,}}"#, 17),
        (#"{"extra":[1,]}"#, 13),
        (#"[[1,],2]"#, 5),
        (#"{"a":{"b":{"c":[1,2,]}}}"#, 21),
        (#"{"a":[{"b":1,}]}"#, 14),
        (#"[{"a":[{"b":[true,]}]}]"#, 19),
        (#"{"a":{"b":1,,"c":2}}"#, 13),
        (#"[1,,2]"#, 4),
        (#"{"a":{,}}"#, 7),
        (#"[[,]]"#, 3),
        (#"{"a":[1 2]}"#, 9),
        (#"{"a":{"b":1 "c":2}}"#, 13),
        (#"{"a":{"b" 1}}"#, 11),
        (#"{"a":{1:2}}"#, 7),
    ]

    static let valid = [
        #"{"a":1}"#, #"[1]"#, #"{"extra":{"a":1,"b":[1,2]}}"#, #"[[1],[2,[3]],{}]"#, #"{"a":{"b":{"c":[1,2,{"d":null}]}}}"#,
        #"{ "a" : [ 1 , 2 ] , "b" : { } }"#, #"[]"#, #"{}"#, #"[[],[{}]]"#,
    ]

    /// `skipValue` over the whole text, then the end: the error, or `nil` when it is valid.
    static func skipError(_ text: String) -> JSONSyntaxError? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer -> JSONSyntaxError? in
            var scanner = JSONScanner(buffer)
            do throws(JSONSyntaxError) {
                _ = try scanner.skipValue(depth: 1)
                try scanner.expectEnd()
                return nil
            } catch {
                return error
            }
        }
    }

    static func parseError(_ text: String) -> JSONSyntaxError? {
        do throws(JSONSyntaxError) {
            _ = try JSONValue.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: invalid.map(\.text))
    func skipValueRejectsATrailingOrMissingCommaAtEveryDepth(_ text: String) throws {
        let error = try #require(Self.skipError(text), "skipValue accepted \(text)")
        let byte = try #require(Self.invalid.first { $0.text == text }?.byte)
        #expect(error.offset + 1 == byte, "\(text): \(error)")
    }

    @Test(arguments: invalid.map(\.text))
    func parseRejectsATrailingOrMissingCommaAtEveryDepth(_ text: String) throws {
        let error = try #require(Self.parseError(text), "JSONValue.parse accepted \(text)")
        let byte = try #require(Self.invalid.first { $0.text == text }?.byte)
        #expect(error.offset + 1 == byte, "\(text): \(error)")
    }

    @Test(arguments: valid)
    func skipValueAndParseAcceptNestedObjectsAndArrays(_ text: String) {
        #expect(Self.skipError(text) == nil, "\(text)")
        #expect(Self.parseError(text) == nil, "\(text)")
    }

    /// A value's identity hash does not depend on its whitespace or its members' order, and
    /// tells nested values apart.
    @Test func nestedValuesHashByContent() throws {
        func hash(_ text: String) throws -> UInt64 {
            let bytes = Array(text.utf8)
            return try bytes.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                return try scanner.skipValue(depth: 1)
            }
        }
        #expect(try hash(#"{"a":{"b":[1,2]},"c":3}"#) == hash(#"{ "c" : 3 , "a" : { "b" : [ 1 , 2 ] } }"#))
        #expect(try hash(#"{"a":{"b":[1,2]}}"#) != hash(#"{"a":{"b":[2,1]}}"#))
        #expect(try hash(#"[[1],[]]"#) != hash(#"[[],[1]]"#))
    }
}
