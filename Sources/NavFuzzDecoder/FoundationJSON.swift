import Foundation
import NavJSON

/// Foundation's reading of JSON, the independent parser of the `decoder` target, and the
/// comparison of its values with `JSONValue`'s.
enum FoundationJSON {
    /// The value Foundation reads from `bytes` (any JSON value at the top), or `nil` when it
    /// rejects them.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Any? {
        let data = bytes.baseAddress.map { Data(bytes: $0, count: bytes.count) } ?? Data()
        return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    /// What differs between navreplay's value and Foundation's, as a path and a description;
    /// `nil` when they hold the same value (numbers compared as integers or as doubles).
    static func difference(_ value: JSONValue, _ other: Any, path: String = "$") -> String? {
        switch value {
        case .null:
            return other is NSNull ? nil : "\(path): null vs \(other)"
        case .bool(let flag):
            guard let number = other as? NSNumber, number.intValue == (flag ? 1 : 0) else { return "\(path): \(flag) vs \(other)" }
            return nil
        case .number(let text):
            return numberDifference(text, other, path: path)
        case .string(let text):
            guard let string = other as? String else { return "\(path): a string vs \(type(of: other))" }
            return JSONDifference.sameText(string, text) ? nil : "\(path): the strings differ"
        case .array(let elements):
            guard let array = other as? [Any] else { return "\(path): an array vs \(type(of: other))" }
            guard array.count == elements.count else { return "\(path): \(elements.count) elements vs \(array.count)" }
            for (index, element) in elements.enumerated() {
                if let difference = difference(element, array[index], path: "\(path)[\(index)]") { return difference }
            }
            return nil
        case .object(let object):
            guard let foundation = other as? [String: Any] else { return "\(path): an object vs \(type(of: other))" }
            let keys = object.keys.map(JSONDifference.comparableKey)
            let dictionary =
                keys.elementsEqual(object.keys)
                ? foundation : Dictionary(foundation.map { (JSONDifference.comparableKey($0.key), $0.value) }) { first, _ in first }
            // Keys Foundation merges (canonically equivalent ones, `JSONDifference.equivalentKeys`)
            // count once.
            guard dictionary.count == Set(keys).count else {
                return "\(path): \(object.members.count) members vs \(dictionary.count)"
            }
            var seen = Set<String>()
            for (key, member) in zip(keys, object.members.map(\.value)) where seen.insert(key).inserted {
                guard let counterpart = dictionary[key] else { return "\(path): key \(JSONWriter.quoted(key)) is missing" }
                // Of equivalent keys, Foundation keeps the last value; compare only the unambiguous ones.
                guard keys.filter({ $0 == key }).count == 1 else { continue }
                if let difference = difference(member, counterpart, path: "\(path).\(key)") { return difference }
            }
            return nil
        }
    }

    private static func numberDifference(_ text: String, _ other: Any, path: String) -> String? {
        guard let number = other as? NSNumber else { return "\(path): a number vs \(type(of: other))" }
        if let integer = JSONValue.number(text).int64Value {
            // Foundation reads an integer past 2^53 as a Double or a Decimal: compare loosely then.
            if integer.magnitude < 1 << 53 { return number.int64Value == integer ? nil : "\(path): \(text) vs \(number)" }
        }
        guard let expected = Double(text) else { return "\(path): \(text) is not a number to Swift" }
        let actual = number.doubleValue
        let scale = Swift.max(Swift.abs(expected), Swift.abs(actual), Double.leastNormalMagnitude)
        return Swift.abs(expected - actual) / scale <= 1e-9 ? nil : "\(path): \(text) vs \(number)"
    }
}
