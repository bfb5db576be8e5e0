import Foundation
import Gazetteer

/// Runs every suite and summarises: hit rate per suite (in-scope cases only), and every
/// miss with what came first instead.
public struct AcceptanceReport: Sendable {
    /// One suite's outcomes.
    public struct SuiteResult: Sendable {
        /// The suite.
        public var name: String
        /// Every case's outcome.
        public var outcomes: [AcceptanceOutcome]
        /// The cases the gazetteer is meant to answer.
        public var inScope: [AcceptanceOutcome] { outcomes.filter { $0.testCase.outOfScope == nil } }
        /// Those answered right.
        public var hits: Int { inScope.filter(\.passed).count }
        /// The share answered right.
        public var rate: Double { inScope.isEmpty ? 0 : Double(hits) / Double(inScope.count) }
        /// In-scope cases whose expected name the data holds at all.
        public var answerable: [AcceptanceOutcome] { inScope.filter(\.nameInData) }
        /// The share answered right of those the data holds an answer to.
        public var answerableRate: Double {
            answerable.isEmpty ? 0 : Double(answerable.filter(\.passed).count) / Double(answerable.count)
        }
    }

    /// Every suite's outcomes.
    public var suites: [SuiteResult]

    /// Runs the external suites in `corpus` (nil: none) and the project's own in
    /// `projectSuites` (Tests/Acceptance; nil: none).
    public init(corpus: URL?, projectSuites: URL? = nil, gazetteer: Gazetteer) throws {
        let names = gazetteer.namesByID()
        let runs =
            try (corpus.map(AcceptanceSuites.all(in:)) ?? []) + (projectSuites.map(AcceptanceSuites.project(in:)) ?? [])
        suites = runs.map { name, cases in
            SuiteResult(name: name, outcomes: cases.map { $0.run(on: gazetteer, names: names) })
        }
    }

    /// The suite named `name`.
    public func suite(_ name: String) -> SuiteResult? { suites.first { $0.name == name } }

    /// The human report: one line per suite, then the misses.
    public var text: String {
        var lines = [
            "suite                                    hits / cases   rate    name in data: rate   out of scope"
        ]
        for suite in suites {
            let label = suite.name.padding(toLength: 40, withPad: " ", startingAt: 0)
            let counts = "\(suite.hits) / \(suite.inScope.count)".padding(toLength: 14, withPad: " ", startingAt: 0)
            let skipped = suite.outcomes.count - suite.inScope.count
            let answerable = "\(suite.answerable.filter(\.passed).count) / \(suite.answerable.count)"
                .padding(toLength: 9, withPad: " ", startingAt: 0)
            lines.append(
                "\(label) \(counts) \(String(format: "%5.1f%%", suite.rate * 100))   \(answerable) "
                    + String(format: "%5.1f%%", suite.answerableRate * 100) + (skipped > 0 ? "   \(skipped)" : ""))
        }
        for suite in suites where suite.hits < suite.inScope.count {
            lines.append("")
            lines.append("misses in \(suite.name):")
            for outcome in suite.inScope where !outcome.passed {
                let c = outcome.testCase
                let rank =
                    outcome.hitRank.map { "found at rank \($0), needed ≤ \(c.rank)" }
                    ?? (outcome.nameInData ? "not found" : "not in the data")
                lines.append(
                    "  \"\(c.query)\" → expected \(c.expectedName): \(rank); first: \(outcome.first ?? "nothing")")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
