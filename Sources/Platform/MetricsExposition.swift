import Foundation

/// Metrics written as Prometheus reads them: the text format 0.0.4, or OpenMetrics 1.0 when
/// the scraper asks for it (Prometheus does, first).
///
/// Contract: each family has its `HELP` and `TYPE`; a sample whose value is not known is
/// left out, never written as 0, and a family without any known sample is left out
/// whole; a counter's samples end in `_total` in both formats (OpenMetrics names the
/// family without it); a histogram's buckets are cumulative and end at `+Inf`, with
/// `_sum` and `_count`. OpenMetrics ends with `# EOF`.
public struct MetricsExposition: Sendable {
    /// Which format.
    public let openMetrics: Bool
    /// The text so far.
    public private(set) var body = ""

    /// An empty exposition in the text format, or OpenMetrics.
    public init(openMetrics: Bool) { self.openMetrics = openMetrics }

    /// A scraper's `Accept` header asks for OpenMetrics.
    public static func asksOpenMetrics(accept: String?) -> Bool {
        accept?.contains("application/openmetrics-text") == true
    }

    /// The content type of this format.
    public var contentType: String {
        openMetrics
            ? "application/openmetrics-text; version=1.0.0; charset=utf-8" : "text/plain; version=0.0.4; charset=utf-8"
    }

    /// The whole document.
    public var text: String { openMetrics ? body + "# EOF\n" : body }

    /// A gauge: `samples` are (labels as `a="b",c="d"` or empty, value).
    public mutating func gauge(_ name: String, _ help: String, _ samples: [(String, Double?)]) {
        family(name, help, type: "gauge", samples.map { (name, $0.0, $0.1) })
    }

    /// A counter named without `_total` (`airloc_collector_acks`).
    public mutating func counter(_ name: String, _ help: String, _ samples: [(String, Double?)]) {
        let known = samples.contains { $0.1 != nil }
        guard known else { return }
        body += "# HELP \(openMetrics ? name : name + "_total") \(help)\n"
        body += "# TYPE \(openMetrics ? name : name + "_total") counter\n"
        for (labels, value) in samples { if let value { body += sample(name + "_total", labels, value) } }
    }

    /// A histogram.
    public mutating func histogram(_ name: String, _ help: String, _ histogram: Histogram) {
        body += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        var cumulative = 0
        for (bound, count) in zip(histogram.bounds, histogram.counts) {
            cumulative += count
            body += sample(name + "_bucket", "le=\"\(Self.number(bound))\"", Double(cumulative))
        }
        body += sample(name + "_bucket", "le=\"+Inf\"", Double(histogram.count))
        body += sample(name + "_sum", "", histogram.sum)
        body += sample(name + "_count", "", Double(histogram.count))
    }

    private mutating func family(_ name: String, _ help: String, type: String, _ samples: [(String, String, Double?)]) {
        let known = samples.compactMap { name, labels, value in value.map { (name, labels, $0) } }
        guard !known.isEmpty else { return }
        body += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        for (name, labels, value) in known { body += sample(name, labels, value) }
    }

    private func sample(_ name: String, _ labels: String, _ value: Double) -> String {
        name + (labels.isEmpty ? "" : "{\(labels)}") + " \(Self.number(value))\n"
    }

    /// A label value escaped as the exposition format says (backslash, quote, newline).
    public static func label(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A value as the shortest text that reads back as it (integers without a point).
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// Observations counted into buckets, as a Prometheus histogram keeps them.
///
/// Contract: `counts[i]` is how many observations were ≤ `bounds[i]` and above the bound
/// before (not cumulative: the exposition sums them); one above every bound counts only
/// in `count` and `sum`.
public struct Histogram: Sendable, Equatable {
    /// The upper bounds, ascending.
    public let bounds: [Double]
    /// Observations per bucket.
    public private(set) var counts: [Int]
    /// The sum of every observation.
    public private(set) var sum = 0.0
    /// How many were observed.
    public private(set) var count = 0

    /// An empty histogram with `bounds`.
    public init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    /// Counts `value`.
    public mutating func observe(_ value: Double) {
        if let index = bounds.firstIndex(where: { value <= $0 }) { counts[index] += 1 }
        sum += value
        count += 1
    }
}
