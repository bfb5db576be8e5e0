import Foundation
import Geo
import Testing

@testable import TerminalUI

/// The picker's pure parts: key decoding, the completer's state machine, the layout.
struct PickerTests {
    static func row(_ name: String, population: Int = 1000, id: Int? = nil, admin1: String = "Region")
        -> Picker.PlaceRow
    {
        Picker.PlaceRow(
            place: Place(
                id: id ?? abs(name.hashValue % 1_000_000), name: name,
                coordinate: try! Coordinate(latitude: 1, longitude: 2),
                admin1: admin1, country: "Country", countryCode: "CC", timezone: "UTC", population: population))
    }

    static let places = ["Munich", "Mumbai", "Munster", "London", "Londonderry", "Paris"]

    /// Offline search over a few names: case-insensitive prefixes.
    static func picker(online: Bool = true) -> Picker {
        Picker(popular: [row("Berlin"), row("Tokyo")], online: online) { query in
            places.filter { $0.lowercased().hasPrefix(query.lowercased()) }.map { row($0) }
        }
    }

    @Test func bytesBecomeKeysWhereverTheyAreSplit() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("mü".utf8).dropLast().map { $0 }) == [.text("m")], "half a ü waits")
        #expect(decoder.feed([0xBC]) == [.text("ü")])
        #expect(decoder.feed([0x1B]) == [] && decoder.isWaiting, "ESC alone might start an arrow key")
        #expect(decoder.feed(Array("[A".utf8)) == [.up])
        #expect(decoder.feed([0x1B, 0x5B, 0x36]) == [] && decoder.feed([0x7E]) == [.pageDown])
        #expect(decoder.feed([0x1B]) == [] && decoder.flush() == [.escape], "no byte followed: the Esc key")
        #expect(decoder.feed([0x7F, 0x15, 0x09, 0x0D, 0x03]) == [.backspace, .clearLine, .tab, .enter, .interrupt])
        #expect(decoder.feed(Array("\u{1B}[H".utf8)) == [], "keys the picker has no use for are dropped")
        #expect(decoder.feed([0x01, 0x02, 0xFF]) == [], "control bytes and broken UTF-8 never reach the query")
        #expect(decoder.feed(Array("New York".utf8)) == [.text("New York")], "a paste is one edit")
    }

    @Test func typingSearchesBackspacingToOneLetterShowsThePopularCitiesAgain() {
        var picker = Self.picker()
        #expect(picker.status == .idle && picker.rows.first == .currentLocation && picker.rows.count == 3)
        #expect(picker.keyPressed(.text("mu"), pageSize: 10) == .redraw)
        #expect(picker.status == .results && picker.rows.count == 3)
        #expect(picker.keyPressed(.text("n"), pageSize: 10) == .redraw)
        #expect(picker.rows.count == 2, "Munich, Munster")
        _ = picker.keyPressed(.backspace, pageSize: 10)
        _ = picker.keyPressed(.backspace, pageSize: 10)
        #expect(picker.query == "m" && picker.status == .idle && picker.rows.first == .currentLocation)
        _ = picker.keyPressed(.text("unster"), pageSize: 10)
        _ = picker.keyPressed(.clearLine, pageSize: 10)
        #expect(picker.query.isEmpty && picker.status == .idle, "Ctrl-U is the clear button")
    }

    @Test func arrowsTabAndEnterChooseTheHighlightedRow() {
        var picker = Self.picker()
        _ = picker.keyPressed(.text("lo"), pageSize: 10)
        #expect(picker.keyPressed(.up, pageSize: 10) == .none, "already at the top")
        #expect(picker.keyPressed(.down, pageSize: 10) == .redraw)
        #expect(picker.keyPressed(.pageDown, pageSize: 10) == .none, "already at the bottom")
        #expect(picker.keyPressed(.tab, pageSize: 10) == .redraw && picker.query == "Londonderry")
        guard case .choose(.place(let row)) = picker.keyPressed(.enter, pageSize: 10) else {
            Issue.record("Enter did not choose")
            return
        }
        #expect(row.place.name == "Londonderry")
        var idle = Self.picker()
        #expect(idle.keyPressed(.enter, pageSize: 10) == .choose(.currentLocation))
        #expect(idle.keyPressed(.escape, pageSize: 10) == .cancel(.cancelled))
        #expect(idle.keyPressed(.interrupt, pageSize: 10) == .cancel(.interrupted))
    }

    @Test func theOnlineFallbackRunsOnlyWhenNothingMatchesAndOnlyItsLatestAnswerCounts() {
        var picker = Self.picker()
        #expect(picker.keyPressed(.text("mun"), pageSize: 10) == .redraw, "offline answers: no request")
        guard case .searchOnline(let query, let first) = picker.keyPressed(.text("zz"), pageSize: 10) else {
            Issue.record("nothing offline: the online search should start")
            return
        }
        #expect(query == "munzz" && picker.status == .searching)
        guard case .searchOnline(_, let second) = picker.keyPressed(.text("y"), pageSize: 10) else {
            Issue.record("a new query restarts the online search")
            return
        }
        #expect(
            picker.onlineAnswered([Self.row("Old")], generation: first) == .none, "an older query's answer is dropped")
        var online = Self.row("Munzzy")
        online.online = true
        #expect(picker.onlineAnswered([online], generation: second) == .redraw)
        #expect(picker.status == .results && picker.rows == [.place(online)])
        // Typing on while a request is pending cancels it when offline answers again.
        _ = picker.keyPressed(.clearLine, pageSize: 10)
        guard case .searchOnline(_, let third) = picker.keyPressed(.text("qq"), pageSize: 10) else {
            Issue.record("expected an online search")
            return
        }
        #expect(picker.keyPressed(.backspace, pageSize: 10) == .cancelOnlineAndRedraw)
        #expect(picker.onlineFailed("late", generation: third) == .none)
        _ = picker.keyPressed(.text("qq"), pageSize: 10)
        #expect(picker.onlineFailed("cannot reach Open-Meteo geocoding", generation: third + 2) == .redraw)
        #expect(picker.status == .error("cannot reach Open-Meteo geocoding"))
        var offline = Self.picker(online: false)
        #expect(offline.keyPressed(.text("qq"), pageSize: 10) == .redraw && offline.status == .noResults)
    }

    @Test func everyLineFitsTheTerminalWhateverTheScript() {
        DisplayWidth.prepare()
        #expect(DisplayWidth.of("東京") == 4, "CJK takes two columns each")
        #expect(DisplayWidth.of("Ŝe\u{301}") == 2, "a combining accent takes none")
        var picker = Picker(
            popular: [
                Self.row("東京都", admin1: "東京都"), Self.row("Ho Chi Minh City", admin1: "Thành phố Hồ Chí Minh"),
                Self.row(String(repeating: "Llanfairpwllgwyngyll", count: 4)),
            ], online: false
        ) { _ in (0..<60).map { (index: Int) in Self.row("Place \(index)", id: index) } }
        for width in [5, 20, 40, 80] {
            let view = PickerView(width: width, height: 24, styled: false)
            let lines = view.lines(picker)
            #expect(lines.count == 24)
            for line in lines { #expect(DisplayWidth.of(line) <= width, "\(width): \(line)") }
        }
        // Scrolling keeps the highlighted row on screen.
        _ = picker.keyPressed(.text("pl"), pageSize: 21)
        for _ in 0..<40 { _ = picker.keyPressed(.down, pageSize: 21) }
        let lines = PickerView(width: 80, height: 24, styled: false).lines(picker)
        #expect(lines.contains { $0.hasPrefix("› Place 40 ") }, "\(lines)")
        #expect(lines.filter { $0.hasPrefix("› ") }.count == 1)
    }
}
