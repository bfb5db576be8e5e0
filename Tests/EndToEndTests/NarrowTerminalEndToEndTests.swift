import Foundation
import TestSupport
import Testing

/// The card on a narrow terminal (a small Pi screen), as tmux shows it: broken at spaces
/// by airloc, not cut mid-value by the terminal.
@Suite(.enabled(if: ExternalTool.available("python3", "tmux")))
struct NarrowTerminalEndToEndTests {
    /// The terminal is made exactly as wide as the climate line up to its last degree
    /// sign: a terminal's own wrap would leave "°" at the end of a row and "C" on the next.
    @Test func theCardFitsANarrowTerminalWithUnitsBesideTheirValues() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        var environment = AirlocBinary.environment(home: home.url, servicesAt: double)
        environment["PATH"] = "/usr/bin:/bin"
        let piped = try await AirlocBinary.run(["now", "--lat", "52.52", "--lon", "13.405"], environment: environment)
        let climate = try #require(
            piped.stdout.split(separator: "\n").first { $0.hasPrefix("Climate") }, "\(piped)")
        let degree = try #require(climate.range(of: " °", options: .backwards), "\(climate)")
        // Every character of the line takes one column (ASCII, "°", "·", the bar blocks).
        let width = climate[..<degree.upperBound].count
        #expect(width > 20 && width < climate.count, "\(climate)")
        let script = """
            "\(AirlocBinary.path)" now --lat 52.52 --lon 13.405
            echo "status $?"
            read -r forever
            """
        let terminal = try await TerminalSession.start(script: script, environment: environment, width: width)
        defer { terminal.stop() }
        let screen = try await terminal.waitFor("status 0")
        #expect(screen.contains("Climate") && screen.contains("Places: GeoNames"), "\(screen)")
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        // A temperature is "12.5 °C": its degree sign, after a space, has its C beside it
        // (coordinates' "52.5200°" have no space before the sign).
        for line in lines where line.contains(" °") {
            #expect(
                line.components(separatedBy: " °").dropFirst().allSatisfy { $0.hasPrefix("C") || $0.hasPrefix("F") },
                "a unit cut from its value by the terminal's own wrap:\n\(screen)")
        }
    }
}
