extension DecodedEvent {
    /// An event with identities computed elsewhere (a spill record keeps the original line's).
    public init(_ event: NavigationEvent, identity: UInt64, contentIdentity: UInt64, eventIDHash: UInt64, correlationIDHash: UInt64) {
        self.event = event
        self.identity = identity
        self.contentIdentity = contentIdentity
        self.eventIDHash = eventIDHash
        self.correlationIDHash = correlationIDHash
    }
}
