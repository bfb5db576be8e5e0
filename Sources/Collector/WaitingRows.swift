import Foundation

/// The rows and device news that wait for the collector's next store, and the window
/// they wait in.
///
/// Contract:
/// - The window opens with the first thing that waits and closes a batch `window` later
///   (or sooner, when a batch's worth of rows waits); what stays after a batch is taken
///   waits a new window from then.
/// - A batch whose store failed goes back in front of what arrived meanwhile, each row
///   marked as maybe stored (its commit may have happened all the same); a device's news
///   from meanwhile is newer than the batch's and is kept.
struct WaitingRows: Sendable {
    /// The rows, oldest first.
    private(set) var rows: [DeviceRow] = []
    /// What is known of each device since the last batch.
    var updates: [String: RowStore.DeviceUpdate] = [:]
    /// When the window opened (nil: nothing waits).
    private(set) var openedAt: ContinuousClock.Instant?

    /// Neither rows nor news wait.
    var isEmpty: Bool { rows.isEmpty && updates.isEmpty }

    /// `row` waits.
    mutating func append(_ row: DeviceRow) { rows.append(row) }

    /// Opens the window at `now` unless it is open: true when it opened now.
    mutating func open(at now: ContinuousClock.Instant) -> Bool {
        guard openedAt == nil else { return false }
        openedAt = now
        return true
    }

    /// How much of the window is left at `now` (nil: none is open; zero or less: due).
    func windowLeft(_ window: Duration, at now: ContinuousClock.Instant) -> Duration? {
        openedAt.map { $0 + window - now }
    }

    /// Takes up to `limit` rows and all the news; what stays opens a new window at `now`.
    mutating func take(_ limit: Int, at now: ContinuousClock.Instant)
        -> (rows: [DeviceRow], updates: [String: RowStore.DeviceUpdate])
    {
        let taken = Array(rows.prefix(limit))
        let news = updates
        rows.removeFirst(taken.count)
        updates = [:]
        openedAt = rows.isEmpty ? nil : now
        return (taken, news)
    }

    /// `batch` was not stored: it waits again, in front.
    mutating func putBack(_ batch: CollectorMachine.Batch, at now: ContinuousClock.Instant) {
        rows =
            batch.rows.map { row in
                var row = row
                row.mayBeStored = true
                return row
            } + rows
        for (device, update) in batch.devices where updates[device] == nil { updates[device] = update }
        openedAt = openedAt ?? now
    }
}
