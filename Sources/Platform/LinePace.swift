/// How many lines of one kind a service says a minute: the first `limit` of each minute
/// are said, the rest counted, and the next line said names how many were left out.
///
/// Why: a broker that drops a client at every connection (another client taking its id on
/// a broker without `use_username_as_clientid`, a flapping link) made the logger write two
/// lines a second into the journal, and the collector three, for as long as it lasted; the
/// trouble is said, its repetitions summed.
///
/// Contract (pure; time is passed in): ``admit(at:)`` says whether a line may be said at
/// `now`, and how many were left out since the last one said.
public struct LinePace: Sendable {
    /// Lines said a minute at most.
    public let limit: Int
    private var minute: ContinuousClock.Instant?
    private var said = 0
    private var leftOut = 0

    /// A pace of `limit` lines a minute.
    public init(limit: Int) { self.limit = limit }

    /// Whether a line may be said at `now`, and the lines left out before it.
    public mutating func admit(at now: ContinuousClock.Instant) -> (say: Bool, leftOut: Int) {
        if let start = minute, now - start < .seconds(60) {
            guard said < limit else {
                leftOut += 1
                return (false, 0)
            }
        } else {
            minute = now
            said = 0
        }
        said += 1
        defer { leftOut = 0 }
        return (true, leftOut)
    }

    /// `line`, with the lines left out before it named.
    public static func line(_ line: String, leftOut: Int) -> String {
        leftOut == 0 ? line : "\(line) (\(leftOut) such line\(leftOut == 1 ? "" : "s") left out in the last minute)"
    }
}
