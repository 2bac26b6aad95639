import Dispatch
package import NavEvents
import NavJSON
import NavModel
package import NavReplay
import NavInput

/// Why a line is unreadable, as its `schema.invalid` finding says.
package enum InvalidLine {
    package static func reason(_ error: EventDecodingError, unterminated: Bool) -> (field: String?, message: String) {
        if unterminated { return (error.field, "torn line: the last line has no line end and is not a valid event (\(error))") }
        return (error.field, error.description)
    }

    package static func finding(at location: LineLocation, message: String) -> Finding {
        Finding(rule: .schemaInvalid, sessionID: nil, seq: nil, eventID: nil, location: location, message: message)
    }
}
