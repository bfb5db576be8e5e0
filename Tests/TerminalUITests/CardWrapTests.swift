import TerminalUI
import Testing

/// The card on a narrow terminal: lines broken at spaces, never between a value and its unit.
struct CardWrapTests {
    let climate = "Climate      +1.8 °C vs 1991-2020 · ██▇▇▆▇▇ · 7 days: 12.5 °C, normal 4.7 °C"

    @Test func aLineThatFitsIsLeftAsItIs() {
        #expect(CardWrap.wrap(climate, width: 80) == [climate])
    }

    @Test(arguments: [60, 40, 24])
    func aLongLineIsBrokenAtSpacesKeepingUnitsWithTheirValues(width: Int) {
        let lines = CardWrap.wrap(climate, width: width)
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { $0.count <= width }, "\(lines)")
        #expect(lines.allSatisfy { !$0.trimmingPrefix(while: { $0 == " " }).hasPrefix("°") }, "\(lines)")
        #expect(lines.joined(separator: "\n").contains("12.5 °C"), "\(lines)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("  ") }, "continuations are indented: \(lines)")
        // Nothing is lost or reordered.
        let words = lines.flatMap { $0.split(separator: " ") }
        #expect(words == climate.split(separator: " "))
    }

    @Test func stylesCountNoColumns() {
        let styled =
            "  \u{1B}[2mData: Open-Meteo.com, CAMS · 2026-11-29T17:00 Europe/Berlin · Places: GeoNames\u{1B}[0m"
        let lines = CardWrap.wrap(styled, width: 60)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines[0].hasPrefix("  \u{1B}[2mData:") && lines[1].hasSuffix("\u{1B}[0m"))
    }
}
