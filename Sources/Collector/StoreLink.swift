import FleetStore
import Platform

/// The collector's way to its database, as a machine of its own: connecting, up, storing
/// one batch, or down until a retry. ``CollectorMachine`` asks it what a failure or a
/// timer means and does what the answer says.
///
/// Contract:
/// - A failed connection or store is tried again after ``Backoff``'s pause (1 s doubling
///   to 60 s), reset only once rows are stored again (``ended(at:)``).
/// - A transaction lost to a deadlock or a serialisation failure is tried again at once,
///   up to ``transientLimit`` in a row; beyond that it is a fault like any other.
/// - The fault is said when it begins, when its kind changes and when it ends
///   (``StoreFault``), never once per retry.
struct StoreLink: Sendable {
    /// What a timer means for the database.
    enum Woken: Equatable, Sendable {
        /// Nothing of the database's: the batch's window or another deadline.
        case nothing
        /// The retry is still to come, after this pause.
        case waiting(Duration)
        /// Connect again.
        case connect
        /// The connection is good: the rows are tried on it again.
        case retry
    }

    private enum State: Sendable {
        case connecting
        case up
        /// A store is in progress: what it holds.
        case storing(CollectorMachine.Batch)
        /// Rows cannot be stored until `retryAt`: then the connection is made again
        /// (`reconnect`: it broke or was never made) or the rows are tried on it again.
        case down(retryAt: ContinuousClock.Instant, reconnect: Bool)
    }

    /// How many lost transactions in a row are tried again at once.
    static let transientLimit = 3
    private var state = State.connecting
    private var backoff = Backoff(first: .seconds(1), cap: .seconds(60))
    private var fault = StoreFault()
    private var transientRetries = 0
    /// Connected once at least: settings that cannot work are then retried, not fatal.
    private(set) var everConnected = false

    /// Rows can be stored now (no store in progress).
    var isUp: Bool {
        if case .up = state { return true }
        return false
    }

    /// Rows cannot be stored until a retry.
    var isDown: Bool {
        if case .down = state { return true }
        return false
    }

    /// The batch being stored, if one is.
    var storing: CollectorMachine.Batch? {
        if case .storing(let batch) = state { return batch }
        return nil
    }

    /// The failure that stops the collector for `error`, a connection's (nil: it is
    /// retried). At the start, settings that cannot work stop it (78: the unit does not
    /// restart it in a loop, nor stay "active" storing nothing); later in a run they are
    /// retried, since a password changed under a running collector may be changed back. A
    /// schema newer than this collector's always stops it, and so does the library.
    func fatal(_ error: DatabaseError) -> ServiceFailure? {
        switch error {
        case .newerSchema:
            return ServiceFailure(
                service: .collector, kind: .configuration, message: error.description,
                remedy: .check("[collect] database and password-file"))
        case .library:
            return ServiceFailure(service: .collector, kind: .unavailable, message: error.description)
        default:
            guard error.isConfiguration, !everConnected else { return nil }
            return ServiceFailure(
                service: .collector, kind: .configuration,
                message: "\(error.description): check [collect] database, password-file and the role's privileges "
                    + "(it must own the database or may create tables in it)",
                remedy: .check("[collect] database and password-file"))
        }
    }

    /// The database answered on a new connection; true the first time in the run.
    mutating func connected() -> Bool {
        state = .up
        defer { everConnected = true }
        return !everConnected
    }

    /// `batch` goes to the database.
    mutating func store(_ batch: CollectorMachine.Batch) { state = .storing(batch) }

    /// A store succeeded.
    mutating func stored() {
        state = .up
        transientRetries = 0
    }

    /// A store failed with `error`: true when it is tried again at once (a transaction lost
    /// to another's, not too many times in a row); else ``failed(_:reconnect:at:)`` follows.
    mutating func retriesAtOnce(_ error: DatabaseError, broken: Bool) -> Bool {
        guard error.isTransient, !broken, transientRetries < Self.transientLimit else {
            transientRetries = 0
            return false
        }
        transientRetries += 1
        state = .up
        return true
    }

    /// Rows cannot be stored for `error`: the pause until the retry, and the line to say
    /// (nil: this kind of fault was said already).
    mutating func failed(_ error: DatabaseError, reconnect: Bool, at now: ContinuousClock.Instant)
        -> (pause: Duration, line: String?)
    {
        let pause = backoff.failed()
        state = .down(retryAt: now + pause, reconnect: reconnect)
        return (pause, fault.happened(error, retryIn: pause, at: now))
    }

    /// Rows are stored again (or the database answers with none waiting): the line that
    /// says the fault ended (nil: there was none).
    mutating func ended(at now: ContinuousClock.Instant) -> String? {
        backoff.succeeded()
        return fault.ended(at: now)
    }

    /// A timer went off at `now`.
    mutating func woke(at now: ContinuousClock.Instant) -> Woken {
        guard case .down(let retryAt, let reconnect) = state else { return .nothing }
        guard now >= retryAt else { return .waiting(retryAt - now) }
        state = reconnect ? .connecting : .up
        return reconnect ? .connect : .retry
    }
}
