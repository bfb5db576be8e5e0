import Foundation

/// When the collector says a refused message on stderr: a pure rule, so that no sender —
/// one device in a loop, or thousands of made-up device ids — can fill the journal.
///
/// Contract:
/// - A device's refusals are said at most once a minute (the first of the minute).
/// - At most ``perMinute`` refusal lines are said in any minute, whoever sent them; the
///   refusals not said are counted, and ``summary(at:)`` says them in one line once their
///   minute is over ("refused 1,874 more messages from 1,200 senders in the last minute").
/// - It remembers a bounded number of senders (``remembered``): past that, the ones not
///   heard from for a minute are forgotten, and a sender beyond even that counts as said
///   this minute (its refusal is summed up, never said alone).
/// Every refusal is counted by the machine whether it is said or not (`/metrics`).
struct RefusalNotes: Sendable {
    /// Refusal lines said in a minute at most.
    static let perMinute = 10
    /// Senders remembered at most.
    static let remembered = 4_096

    private var lastSaid: [String: ContinuousClock.Instant] = [:]
    private var minuteStarted: ContinuousClock.Instant?
    private var saidThisMinute = 0
    private var unsaid = 0
    private var unsaidSenders = Set<String>()

    /// A message from `sender` refused for `reason`, the `count`th refusal so far: the lines
    /// to say at `now` (the last minute's summary when due, then this refusal's when it is
    /// said) and the pause until a pending summary is due.
    mutating func refused(sender: String?, reason: String, count: Int, at now: ContinuousClock.Instant)
        -> (lines: [String], wake: Duration?)
    {
        var lines = summary(at: now).map { [$0] } ?? []
        if shouldSay(sender: sender, at: now) {
            let from = sender.map { "from \($0)" } ?? "on a topic without a device name"
            lines.append("refused a message \(from): \(reason) (\(count) refused so far)")
        }
        return (lines, summaryDue(at: now).map { max($0, .milliseconds(1)) })
    }

    /// What is due at `now` without a refusal: the last minute's summary, and the pause until
    /// the next.
    mutating func due(at now: ContinuousClock.Instant) -> (lines: [String], wake: Duration?) {
        (summary(at: now).map { [$0] } ?? [], summaryDue(at: now).map { max($0, .milliseconds(1)) })
    }

    /// Whether to say the refusal of a message from `sender` now (nil: a sender with no valid
    /// name, all such counted as one).
    mutating func shouldSay(sender: String?, at now: ContinuousClock.Instant) -> Bool {
        let sender = sender ?? "\u{0}unnamed"
        rollMinute(at: now)
        if let last = lastSaid[sender], now - last < .seconds(60) {
            countUnsaid(sender)
            return false
        }
        guard saidThisMinute < Self.perMinute else {
            countUnsaid(sender)
            return false
        }
        if lastSaid.count >= Self.remembered {
            lastSaid = lastSaid.filter { now - $0.value < .seconds(60) }
            guard lastSaid.count < Self.remembered else {
                countUnsaid(sender)
                return false
            }
        }
        lastSaid[sender] = now
        saidThisMinute += 1
        return true
    }

    /// The line that sums up the refusals not said, once their minute is over (nil: none,
    /// or the minute is still on).
    mutating func summary(at now: ContinuousClock.Instant) -> String? {
        guard let started = minuteStarted, now - started >= .seconds(60), unsaid > 0 else { return nil }
        let senders = unsaidSenders.count >= Self.remembered ? "\(Self.remembered)+" : "\(unsaidSenders.count)"
        let line =
            "refused \(unsaid) more \(unsaid == 1 ? "message" : "messages") from \(senders) "
            + "\(unsaidSenders.count == 1 ? "sender" : "senders") in the last minute "
            + "(each counted by reason in /metrics and collect status)"
        unsaid = 0
        unsaidSenders = []
        minuteStarted = nil
        saidThisMinute = 0
        return line
    }

    /// How long until a pending summary is due (nil: none pending).
    func summaryDue(at now: ContinuousClock.Instant) -> Duration? {
        guard unsaid > 0, let started = minuteStarted else { return nil }
        return max(.zero, started + .seconds(60) - now)
    }

    private mutating func rollMinute(at now: ContinuousClock.Instant) {
        guard let started = minuteStarted else {
            minuteStarted = now
            return
        }
        // A minute with nothing left unsaid ends on its own; one with refusals unsaid ends
        // with its summary.
        if now - started >= .seconds(60), unsaid == 0 {
            minuteStarted = now
            saidThisMinute = 0
        }
    }

    private mutating func countUnsaid(_ sender: String) {
        unsaid += 1
        if unsaidSenders.count < Self.remembered { unsaidSenders.insert(sender) }
    }
}
