import AirQuality
import Foundation
import Geo
import Logbook

/// Store and forward: the hours the logger could not fetch (pending rows), asked again
/// from the service's hourly history once it answers.
///
/// Contract: pending rows are grouped by the coordinate that was sent and cut into
/// contiguous spans of hours; each span is one request (a week offline in one place is
/// one request), at most `maximumSpan` hours long. Each row gets the value of its own
/// hour (`backfill`), or becomes `unavailable` with the reason when the service has no
/// value for that hour or refuses the span. A span whose request fails for a reason that
/// may pass (network, 5xx, 429) stays pending for the next attempt.
public enum Backfill {
    /// One request's worth: a place and a run of consecutive hours.
    public struct Span: Sendable, Equatable {
        /// The coordinate that was sent (and is asked again).
        public var sent: Coordinate
        /// The first pending hour.
        public var first: Date
        /// The last pending hour.
        public var last: Date
        /// The rows it fills.
        public var rows: [Int64]
    }

    /// About 92 days, what the API serves in one answer of hourly history.
    public static let maximumSpan = 92 * 24

    /// The requests that cover `pending`, oldest first.
    public static func plan(_ pending: [AirRecord]) -> [Span] {
        var cells: [String: [AirRecord]] = [:]
        var order: [String] = []
        for record in pending {
            let key = "\(record.sentCoordinate.latitude),\(record.sentCoordinate.longitude)"
            if cells[key] == nil { order.append(key) }
            cells[key, default: []].append(record)
        }
        var spans: [Span] = []
        for key in order {
            let records = cells[key]!.sorted { ($0.hour, $0.id) < ($1.hour, $1.id) }
            var current: Span?
            for record in records {
                if var span = current, record.hour.timeIntervalSince(span.last) <= 3600,
                    span.last.timeIntervalSince(span.first) < Double(maximumSpan - 1) * 3600
                {
                    span.last = max(span.last, record.hour)
                    span.rows.append(record.id)
                    current = span
                } else {
                    if let span = current { spans.append(span) }
                    current = Span(
                        sent: record.sentCoordinate, first: record.hour, last: record.hour, rows: [record.id])
                }
            }
            if let span = current { spans.append(span) }
        }
        return spans.sorted { $0.first < $1.first }
    }

    /// What one back-fill run did.
    public struct Outcome: Sendable, Equatable {
        /// History requests sent.
        public var requests = 0
        /// Hours filled.
        public var filled = 0
        /// Hours the service had no data for.
        public var unavailable = 0
        /// The failure that left rows pending (nil when none did).
        public var failure: String?
        /// True when the failure is a rate limit (the caller backs off).
        public var rateLimited = false
    }

    /// Fills what it can of `logbook`'s pending rows through `service`.
    public static func run(logbook: Logbook, service: OpenMeteoAirQuality) async -> Outcome {
        var outcome = Outcome()
        let pending: [AirRecord]
        do { pending = try logbook.pending() } catch {
            outcome.failure = error.description
            return outcome
        }
        let byID = Dictionary(uniqueKeysWithValues: pending.map { ($0.id, $0) })
        for span in plan(pending) {
            outcome.requests += 1
            var answers: [(id: Int64, values: AirValues?, reason: String?)] = []
            do {
                let hours = try await service.history(at: span.sent, from: span.first, through: span.last)
                for id in span.rows {
                    guard let record = byID[id] else { continue }
                    if let reading = hours[record.hour] ?? nil {
                        answers.append((id, AirValues(reading), nil))
                    } else {
                        answers.append((id, nil, "the service has no value for this hour"))
                    }
                }
            } catch {
                if case .web(.rejected(_, _, let reason)) = error {
                    // The span itself is refused (before the data's coverage): asking
                    // again will not help.
                    answers = span.rows.map { ($0, nil, reason ?? error.description) }
                } else {
                    outcome.failure = error.description
                    if case .web(.rateLimited) = error { outcome.rateLimited = true }
                    break
                }
            }
            do { try logbook.fill(answers) } catch {
                outcome.failure = error.description
                break
            }
            outcome.filled += answers.filter { $0.values != nil }.count
            outcome.unavailable += answers.filter { $0.values == nil }.count
        }
        return outcome
    }
}

extension AirValues {
    /// The numbers of a reading, as the logbook keeps them.
    public init(_ reading: AirQualityReading) {
        self.init()
        usAQI = reading.usAQI
        category = reading.category.rawValue
        dominantPollutant = reading.dominantPollutant?.rawValue
        for (pollutant, value) in reading.concentrations { pollutants[pollutant.rawValue] = value }
        europeanAQI = reading.europeanAQI
        if let strongest = reading.pollen.dominant {
            pollen = "\(strongest.species.rawValue) \(strongest.level.rawValue)"
        }
    }
}
