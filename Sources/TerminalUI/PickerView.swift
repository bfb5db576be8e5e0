import Foundation
import Geo
import Platform

/// Draws a ``Picker`` as lines of a terminal screen: the query line, a status line, the
/// rows, and a key help line.
///
/// Contract: pure — the same picker, size and clock give the same lines; every line fits
/// `width` columns by display width (CJK, combining marks), so nothing wraps; the list
/// scrolls so the highlighted row is always visible. Styling (bold, dim, reverse) only
/// when `styled`; the highlighted row is also marked with "›" so it shows without it.
public struct PickerView {
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int
    /// Colour and bold.
    public var styled: Bool
    /// The time, for local times.
    public var now = Date()

    /// A view of this size.
    public init(width: Int, height: Int, styled: Bool, now: Date = Date()) {
        self.width = width
        self.height = height
        self.styled = styled
        self.now = now
    }

    /// Rows the list shows at once (the page size for PgUp/PgDn).
    public var listHeight: Int { max(1, height - 3) }

    /// What the input line starts with.
    public static let prompt = "Search: "

    /// The screen's lines for `picker`.
    public func lines(_ picker: Picker) -> [String] {
        // (A terminal narrower than the prompt still gets a line that fits.)
        var lines = [
            DisplayWidth.truncate(
                Self.prompt
                    + DisplayWidth.tail(TerminalText.plain(picker.query), to: max(1, width - Self.prompt.count - 1)),
                to: width)
        ]
        lines.append(dim(DisplayWidth.truncate(TerminalText.plain(statusText(picker)), to: width)))
        let first = max(0, min(picker.selected - listHeight + 1, picker.rows.count - listHeight))
        let visible = picker.rows.indices.dropFirst(first).prefix(listHeight)
        for index in visible {
            lines.append(render(picker.rows[index], selected: index == picker.selected))
        }
        // With no rows, the list area has room for the whole reason of a failure.
        if picker.rows.isEmpty, case .error(let message) = picker.status {
            lines += Self.wrap(TerminalText.plain(message), width: max(10, width - 2)).prefix(listHeight).map {
                "  " + $0
            }
        }
        while lines.count < height - 1 { lines.append("") }
        lines.append(
            dim(DisplayWidth.truncate("↑↓ move · Enter choose · Tab complete · Ctrl-U clear · Esc cancel", to: width)))
        return Array(lines.prefix(max(1, height)))
    }

    /// Column (1-based) of the cursor on the query line.
    public func cursorColumn(_ picker: Picker) -> Int {
        Self.prompt.count + DisplayWidth.of(DisplayWidth.tail(picker.query, to: max(1, width - Self.prompt.count - 1)))
            + 1
    }

    /// The status line.
    public func statusText(_ picker: Picker) -> String {
        switch picker.status {
        case .idle: return "Popular cities — type 2 letters or more to search"
        case .results:
            let count = picker.rows.count
            let online = picker.rows.contains {
                if case .place(let row) = $0 { return row.online } else { return false }
            }
            return "\(count) \(count == 1 ? "place" : "places")" + (online ? " (with online results)" : "")
        case .searching: return "Searching online…"
        case .noResults: return "No results found"
        case .error(let message):
            return picker.rows.isEmpty
                ? "No results found offline; the online search failed:" : "Online search failed: \(message)"
        }
    }

    /// One row.
    public func render(_ row: Picker.Row, selected: Bool) -> String {
        let marker = selected ? "› " : "  "
        let available = max(0, width - 2)
        switch row {
        case .currentLocation:
            let text = DisplayWidth.truncate("Use current location", to: available)
            return marker + (selected ? reverse(text) : bold(text))
        case .place(let row):
            let place = row.place
            var info: [String] = []
            if let distance = row.distance {
                info.append(
                    distance < 10_000 ? String(format: "%.1f km", distance / 1000) : "\(Int(distance / 1000)) km")
            } else if place.population > 0 {
                info.append("pop. " + Self.shortNumber(place.population))
            }
            if let local = LocalTime(timezone: place.timezone, at: now) { info.append(local.clock) }
            if row.online { info.append("online") }
            var right = info.joined(separator: " · ")
            // A narrow terminal keeps the name: the details go first.
            if DisplayWidth.of(right) + 2 + 8 > available { right = "" }
            // Names may come from the online search: no control character reaches the terminal.
            let region = TerminalText.plain(
                [place.admin1, place.country].filter { !$0.isEmpty }.joined(separator: ", "))
            let rightWidth = DisplayWidth.of(right)
            let room = max(0, available - rightWidth - (right.isEmpty ? 0 : 2))
            let name = DisplayWidth.truncate(TerminalText.plain(place.name), to: room)
            let regionRoom = room - DisplayWidth.of(name) - 2
            let regionText = regionRoom >= 4 ? DisplayWidth.truncate(region, to: regionRoom) : ""
            let leftWidth = DisplayWidth.of(name) + (regionText.isEmpty ? 0 : 2 + DisplayWidth.of(regionText))
            let gap = String(repeating: " ", count: max(right.isEmpty ? 0 : 2, available - leftWidth - rightWidth))
            if selected {
                let plain = name + (regionText.isEmpty ? "" : "  " + regionText) + gap + right
                return marker + reverse(plain)
            }
            return marker + bold(name) + (regionText.isEmpty ? "" : "  " + dim(regionText)) + gap + dim(right)
        }
    }

    /// `text` broken at spaces into lines of at most `width` columns (a longer word is cut).
    public static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if DisplayWidth.of(candidate) <= width {
                line = candidate
            } else {
                if !line.isEmpty { lines.append(line) }
                line = DisplayWidth.truncate(String(word), to: width)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// "3.4M", "45k", "812".
    public static func shortNumber(_ value: Int) -> String {
        switch value {
        case 1_000_000...: return String(format: "%.1fM", Double(value) / 1_000_000)
        case 10_000...: return "\(value / 1000)k"
        default: return "\(value)"
        }
    }

    private func bold(_ text: String) -> String { styled ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    private func dim(_ text: String) -> String { styled && !text.isEmpty ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    private func reverse(_ text: String) -> String { styled ? "\u{1B}[7m\(text)\u{1B}[0m" : text }
}
