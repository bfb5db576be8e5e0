import Foundation
import Platform

/// SVG 1.1 written as a stream: elements go to the sink as they are made, so a figure of
/// 100,000 points never exists in memory at once.
///
/// Contract: self-contained (no external fonts, images or scripts: a generic font family
/// only); text and attribute values are XML-escaped, control characters dropped; numbers
/// have at most one decimal (a tenth of a pixel is below what any screen shows).
struct SVGWriter {
    private let sink: (String) throws -> Void
    private var buffer = ""

    init(sink: @escaping (String) throws -> Void) { self.sink = sink }

    mutating func write(_ text: String) throws {
        buffer += text
        if buffer.utf8.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try sink(buffer)
        buffer = ""
    }

    mutating func open(width: Int, height: Int, title: String) throws {
        try write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="sans-serif">
            <title>\(Self.escape(title))</title>
            <rect width="\(width)" height="\(height)" fill="#FFFFFF"/>

            """)
    }

    mutating func close() throws {
        try write("</svg>\n")
        try flush()
    }

    /// `<text>` at (x, y); `anchor` start, middle or end.
    mutating func text(
        _ content: String, x: Double, y: Double, size: Double, anchor: String = "start", id: String? = nil,
        weight: String? = nil, fill: String? = "#222222", className: String? = nil
    ) throws {
        var attributes = "x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" font-size=\"\(Self.number(size))\""
        if anchor != "start" { attributes += " text-anchor=\"\(anchor)\"" }
        if let id { attributes += " id=\"\(id)\"" }
        if let className { attributes += " class=\"\(className)\"" }
        if let weight { attributes += " font-weight=\"\(weight)\"" }
        try write("<text \(attributes) fill=\"\(fill ?? "#222222")\">\(Self.escape(content))</text>\n")
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0
            ? String(Int(tenths / 10)) : String(format: "%.1f", tenths / 10)
    }

    static func escape(_ text: String) -> String { XMLText.escape(text, keepingLineBreaks: false) }
}
