import NavEvents
import NavJSON
import NavModel
import NavReplay
import NavInput
import NavResults

/// A fixed number of result slots that parallel jobs fill, each its own slot.
package final class ParallelResults<Value>: @unchecked Sendable {
    // @unchecked: every slot is written by exactly one job and read only after all have
    // joined; the slots live in raw memory, so no job touches a shared Swift property.
    private let slots: UnsafeMutableBufferPointer<Value?>

    package init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    package subscript(index: Int) -> Value? {
        get { slots[index] }
        set { slots[index] = newValue }
    }

    /// Moves a slot's value out, leaving it empty.
    package func take(_ index: Int) -> Value? { slots[index].take() }

    package var values: [Value] { slots.compactMap { $0 } }
}
