import CardinalStore

/// What the admission of a `POST /v1/events` passes on to its handler: the app its key belongs to, and the
/// memory reserved for its body (released when the request is done with it).
struct AdmittedRequest: Sendable {
    let app: IngestKeyLookup
    let bodyReservation: MemoryBudget.Reservation
}
