import Foundation
import FoundationXML
import TestSupport
import Testing

/// `airloc log plot` on a seeded day (airloc-bench day-write), read back with a real XML
/// parser: the track's stretches and colours, the gap kept a gap, the axis range, the
/// back-filled hour, the attribution; and bad input refused with nothing half-written.
@Suite(.enabled(if: ExternalTool.available("python3", "rsvg-convert", "chromium")))
struct LogPlotEndToEndTests {
    /// The elements of an SVG document, in order: name and attributes (text in "#text").
    final class Elements: NSObject, XMLParserDelegate {
        var list: [(name: String, attributes: [String: String])] = []
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            list.append((name, attributes))
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if let index = list.lastIndex(where: { $0.name == name }), list[index].attributes["#text"] == nil {
                list[index].attributes["#text"] = text
            }
        }
    }

    static func parse(_ data: Data) throws -> [(name: String, attributes: [String: String])] {
        let parser = XMLParser(data: data)
        let elements = Elements()
        parser.delegate = elements
        guard parser.parse() else {
            throw FixtureError("not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?")")
        }
        return elements.list
    }

    static func seeded(start: Date? = nil) async throws -> (TemporaryDirectory, [String: String]) {
        let home = try TemporaryDirectory()
        let database = home.file("logbook.sqlite").path
        let bench = URL(fileURLWithPath: AirlocBinary.path).deletingLastPathComponent()
            .appendingPathComponent("airloc-bench").path
        let written = try await ChildProcess.run(
            bench, ["day-write", database] + (start.map { ["\(Int($0.timeIntervalSince1970))"] } ?? []),
            environment: [:])
        guard written.status == 0 else { throw FixtureError("day-write: \(written)") }
        return (home, AirlocBinary.environment(home: home.url, extra: ["AIRLOC_LOG_DATABASE": database]))
    }

    @Test func theSeededDayIsDrawnAsItWas() async throws {
        let (home, environment) = try await Self.seeded()
        defer { home.remove() }
        let file = home.file("day.svg")
        let result = try await AirlocBinary.run(["log", "plot", "--output", file.path], environment: environment)
        #expect(result.status == 0, "\(result)")
        let elements = try Self.parse(try Data(contentsOf: file))
        let lines = elements.filter { $0.name == "polyline" }
        // Hour 8 good (green), hour 9 USG (orange, AQI 137) until the gap; after it the sensor's
        // Moderate (yellow). Three polylines, in that order.
        #expect(
            lines.map { $0.attributes["stroke"] } == ["#00E400", "#FF7E00", "#FFFF00"], "\(lines.map(\.attributes))")
        // The gap is a gap: the orange stretch ends west of where the yellow one begins, and no
        // polyline joins them.
        func xs(_ line: (name: String, attributes: [String: String])) -> [Double] {
            (line.attributes["points"] ?? "").split(separator: " ").compactMap { Double($0.split(separator: ",")[0]) }
        }
        let (orange, yellow) = (xs(lines[1]), xs(lines[2]))
        #expect((orange.last ?? 0) < (yellow.first ?? 0) - 5, "\(orange.last ?? 0) → \(yellow.first ?? 0)")
        // The US index axis reaches the top of the USG band: 150.
        #expect(elements.first { $0.attributes["id"] == "index-top" }?.attributes["#text"] == "150")
        #expect(elements.contains { $0.attributes["class"] == "backfilled" }, "hour 9 was back-filled")
        // Both lines are indices on the one scale, and the legend names every mark drawn.
        #expect(
            elements.contains { $0.attributes["id"] == "measured-index" }
                && elements.contains { $0.attributes["id"] == "model-index" })
        let legend = elements.filter { $0.attributes["class"] == "legend" }.compactMap { $0.attributes["#text"] }
        #expect(legend == ["model", "measured", "back-filled", "Good", "Moderate", "USG"], "\(legend)")
        let attribution = elements.first { $0.attributes["id"] == "attribution" }?.attributes["#text"] ?? ""
        #expect(attribution.contains("Open-Meteo") && attribution.contains("GeoNames"))
        #expect(elements.first { $0.name == "title" }?.attributes["#text"]?.contains("Berlin") == true)
        #expect(
            elements.contains { $0.attributes["id"] == "start" } && elements.contains { $0.attributes["id"] == "end" })
        #expect(elements.first { $0.attributes["id"] == "start-name" }?.attributes["#text"] == "Berlin")
        // Time labels in Berlin's time: the walk 08:00–10:00Z is 09:00–11:00 there.
        #expect(
            elements.first { $0.attributes["id"] == "span" }?.attributes["#text"] == "2026-11-30 09:00–10:59 (UTC+1)")
    }

    /// The figure as pixels, drawn by three real renderers: airloc's own PNG (librsvg through
    /// cairo), `rsvg-convert` of the SVG file, and headless Chromium's screenshot of it. Where the seeded AQI was 137 the track is
    /// the EPA's USG orange; in the gap the panel stays background.
    @Test func thePixelsShowTheColourWhereTheAirWasAndNothingInTheGap() async throws {
        let (home, environment) = try await Self.seeded()
        defer { home.remove() }
        let svg = home.file("day.svg")
        let png = home.file("day.png")
        for (format, file) in [("svg", svg), ("png", png)] {
            let result = try await AirlocBinary.run(
                ["log", "plot", "--format", format, "--output", file.path], environment: environment)
            #expect(result.status == 0, "\(format): \(result)")
        }
        let lines = try Self.parse(try Data(contentsOf: svg)).filter { $0.name == "polyline" }
        func points(_ line: (name: String, attributes: [String: String])) -> [(Double, Double)] {
            (line.attributes["points"] ?? "").split(separator: " ").compactMap {
                let xy = $0.split(separator: ",").compactMap { Double($0) }
                return xy.count == 2 ? (xy[0], xy[1]) : nil
            }
        }
        let orange = points(try #require(lines.first { $0.attributes["stroke"] == "#FF7E00" }))
        let yellow = points(try #require(lines.first { $0.attributes["stroke"] == "#FFFF00" }))
        let onTrack = orange[orange.count / 2]
        let inGap = ((orange.last!.0 + yellow.first!.0) / 2, (orange.last!.1 + yellow.first!.1) / 2)
        // The measured line (12–16 µg/m³: AQI 52–60) lies in the Moderate band: just above it
        // is the band's yellow at a quarter over white, #FFFFBF (it used to sit in green).
        let measured = try #require(
            try Self.parse(try Data(contentsOf: svg)).first { $0.attributes["id"] == "measured-index" })
        let numbers = (measured.attributes["d"] ?? "").split { "MHV ".contains($0) }.compactMap { Double($0) }
        let above = (numbers[0] + 2, numbers[1] - 3)
        let rendered = home.file("rsvg.png")
        let converted = try await ChildProcess.run(
            try #require(ExternalTool.path(of: "rsvg-convert")), ["-o", rendered.path, svg.path],
            environment: ProcessInfo.processInfo.environment)
        #expect(converted.status == 0, "\(converted)")
        // Chromium as root (CI) needs --no-sandbox; a profile of its own in the test's home.
        let screenshot = home.file("chromium.png")
        let shot = try await ChildProcess.run(
            try #require(ExternalTool.path(of: "chromium")),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--user-data-dir=\(home.file("chromium-profile").path)", "--screenshot=\(screenshot.path)",
                "--window-size=800,480", "file://\(svg.path)",
            ], environment: ["HOME": home.url.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""],
            timeout: 300)
        #expect(shot.status == 0 && FileManager.default.fileExists(atPath: screenshot.path), "\(shot)")
        for image in [png, rendered, screenshot] {
            let read = try await ChildProcess.run(
                try #require(ExternalTool.path(of: "python3")),
                [
                    PackagePaths.file("scripts/png-pixel.py").path, image.path, "\(onTrack.0),\(onTrack.1)",
                    "\(inGap.0),\(inGap.1)", "\(above.0),\(above.1)",
                ], environment: ProcessInfo.processInfo.environment)
            #expect(read.stdout == "#FF7E00\n#FFFFFF\n#FFFFBF\n", "\(image.lastPathComponent): \(read)")
        }
    }

    @Test(arguments: [
        (["--since", "2026-11-30T10:00Z", "--until", "2026-11-30T09:00Z"], 64, "is not before --until"),
        (["--width", "5"], 64, "--width must be a whole number of pixels from 64 to 8000"),
        (["--format", "jpeg"], 64, "--format must be svg or png, not 'jpeg'"),
        (["--format", "png"], 64, "--format png with an --output named .svg: drop one of them"),
        (["--since", "2026-12-30"], 66, "nothing to draw: the window holds 0 track points and no measured reading"),
    ])
    func badInputIsRefusedPlainly(arguments: [String], status: Int32, said: String) async throws {
        let (home, environment) = try await Self.seeded()
        defer { home.remove() }
        let output = home.file("out.svg")
        let result = try await AirlocBinary.run(
            ["log", "plot", "--output", output.path] + arguments, environment: environment)
        #expect(result.status == status && result.stderr.contains(said), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: output.path), "no half-written figure")
        let left = try FileManager.default.contentsOfDirectory(atPath: home.url.path).filter { $0.contains("partial") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func anUnwritableOutputIsAnIOErrorAndLeavesNothing() async throws {
        let (home, environment) = try await Self.seeded()
        defer { home.remove() }
        let result = try await AirlocBinary.run(
            ["log", "plot", "--output", home.file("no-such-dir/day.svg").path], environment: environment)
        #expect(result.status == 74 && result.stderr.contains("no-such-dir"), "\(result)")
    }

    /// `--output day.png` alone is a bitmap: the file's name says the format (it used to be
    /// an SVG named .png).
    @Test func anOutputNamedPNGIsAPNG() async throws {
        let (home, environment) = try await Self.seeded()
        defer { home.remove() }
        let png = home.file("Day.PNG")
        let result = try await AirlocBinary.run(["log", "plot", "--output", png.path], environment: environment)
        #expect(result.status == 0, "\(result)")
        let bytes = try Data(contentsOf: png)
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG")
    }
}
