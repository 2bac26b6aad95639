package import NavRuns

/// A session is its id within one app (model): sessions order by id, then by model, and
/// partitions and run files carry them as run keys (the model as the group, the id as the label).
package typealias SessionKey = RunKey

extension RunKey {
    package init(model: Int, id: String) { self.init(group: model, label: id) }

    /// The index of the session's model among the run's models.
    package var model: Int {
        get { group }
        set { group = newValue }
    }

    /// The session id.
    package var id: String {
        get { label }
        set { label = newValue }
    }
}
