import Foundation
import Geo

/// The providers in the user's order (default gpsd, then manual), each with its own
/// deadline: the first that answers with a current fix wins, and every other provider's
/// outcome is kept so the user can see why it did not answer.
///
/// Contract: a provider the caller did not authorize is never started (its attempt says
/// so); a provider that fails or runs out of time hands over to the next; the whole
/// chain ends within the sum of the deadlines. When nothing answers, ``ChainFailure``
/// carries every attempt.
public struct LocationChain: Sendable {
    /// One provider and how long it may take.
    public struct Link: Sendable {
        /// The provider.
        public var provider: any LocationProvider
        /// How long it may take.
        public var deadline: Duration

        /// `provider`, given `deadline`.
        public init(_ provider: any LocationProvider, deadline: Duration) {
            self.provider = provider
            self.deadline = deadline
        }
    }

    /// What happened to one provider.
    public struct Attempt: Sendable, Equatable {
        /// How one provider's attempt ended.
        public enum Outcome: Sendable, Equatable {
            case answered
            case failed(String)
            /// Not started (not authorized, not configured).
            case skipped(String)
            /// Not needed: an earlier provider answered.
            case notTried
        }

        /// The provider tried.
        public var provider: String
        /// How it ended.
        public var outcome: Outcome
        /// Seconds it took (nil when it was not started).
        public var seconds: Double?
    }

    /// The winning fix and the story of how it was found.
    public struct Answer: Sendable {
        /// The fix.
        public var fix: Fix
        /// The provider that gave it.
        public var provider: String
        /// Every provider tried, in order.
        public var attempts: [Attempt]
    }

    /// No provider answered.
    public struct ChainFailure: Error, Sendable, CustomStringConvertible {
        /// Every provider tried, in order.
        public var attempts: [Attempt]
        /// The underlying errors by provider, for exit-code decisions.
        public var errors: [String: any Error & Sendable]

        /// Why no provider answered, one per attempt.
        public var description: String {
            let parts = attempts.map { attempt -> String in
                switch attempt.outcome {
                case .answered, .notTried: return "\(attempt.provider): -"
                case .failed(let reason), .skipped(let reason): return "\(attempt.provider): \(reason)"
                }
            }
            return "no location: " + parts.joined(separator: "; ")
        }
    }

    /// The providers, in the order they are tried.
    public var links: [Link]

    /// A chain of `links`.
    public init(_ links: [Link]) { self.links = links }

    /// Runs the chain. `mayRun` says whether a provider may be started and, if not, why.
    public func locate(mayRun: (any LocationProvider) -> String?) async throws -> Answer {
        var attempts: [Attempt] = []
        var errors: [String: any Error & Sendable] = [:]
        for (index, link) in links.enumerated() {
            try Task.checkCancellation()
            let name = link.provider.name
            if let reason = mayRun(link.provider) {
                attempts.append(Attempt(provider: name, outcome: .skipped(reason)))
                continue
            }
            let started = ContinuousClock.now
            do {
                let fix = try await link.provider.currentFix(timeout: link.deadline)
                let seconds = (ContinuousClock.now - started).seconds
                attempts.append(Attempt(provider: name, outcome: .answered, seconds: seconds))
                for later in links[(index + 1)...] {
                    attempts.append(Attempt(provider: later.provider.name, outcome: .notTried))
                }
                return Answer(fix: fix, provider: name, attempts: attempts)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                let seconds = (ContinuousClock.now - started).seconds
                attempts.append(Attempt(provider: name, outcome: .failed("\(error)"), seconds: seconds))
                errors[name] = error
            }
        }
        throw ChainFailure(attempts: attempts, errors: errors)
    }
}

/// GeoClue's rule for whether a new fix should replace the one held: a newer fix
/// replaces an older one unless it lies within the held fix's accuracy radius while
/// being less accurate (an IP guess must not displace a good GPS fix it agrees with);
/// an older fix never replaces a newer one; anything replaces a stale or lost one.
public enum FixPreference {
    /// True when `new` should replace `held` (see the rules above).
    public static func shouldReplace(_ held: Fix?, heldIsCurrent: Bool, with new: Fix) -> Bool {
        guard let held, heldIsCurrent else { return true }
        if let newTime = new.receivedAt ?? new.time, let heldTime = held.receivedAt ?? held.time, newTime < heldTime {
            return false
        }
        let heldRadius = held.horizontalAccuracy ?? 0
        let newRadius = new.horizontalAccuracy ?? .infinity
        if newRadius > heldRadius && held.coordinate.distance(to: new.coordinate) <= heldRadius {
            return false
        }
        // A different place reported less accurately still loses against a current,
        // more accurate fix from a better source.
        if newRadius > heldRadius && held.source == .gps && new.source != .gps { return false }
        return true
    }
}
