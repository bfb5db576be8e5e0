import Foundation
import Gazetteer
import Geo
import HTTPService
import Logbook
import Platform
import Serve
import Settings

/// The HTTP request as `airloc serve` sees it once libmicrohttpd has read it: the method,
/// the path, the query's arguments (`since`, `until`, `width`, `share`, paging) and the
/// headers (Basic credentials among them), answered over a logbook of a few rows.
///
/// Input: the method on the first line, the path with its query on the second, then
/// `name: value` header lines. What must hold: every request gets an answer with a status
/// of HTTP's range, and only GET and HEAD are ever answered 200.
enum ServeFuzzing {
    static let targets = [
        FuzzTarget("http-request", "a request (method, path?query, headers) answered by serve's routes") { bytes in
            let lines = FuzzInput.parts(bytes, limit: 12).map(FuzzInput.text)
            let method = lines.first ?? "GET"
            let target = lines.count > 1 ? lines[1] : "/"
            let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            var arguments: [String: String] = [:]
            for pair in (parts.count > 1 ? parts[1].split(separator: "&") : []) {
                let field = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                arguments[String(field[0])] =
                    field.count > 1 ? (String(field[1]).removingPercentEncoding ?? String(field[1])) : ""
            }
            var headers: [String: String] = [:]
            for line in lines.dropFirst(2) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }
            let request = ServedRequest(
                method: method, path: String(parts.first ?? "/"), headBytes: bytes.count, headers: headers,
                arguments: arguments, client: bytes.count % 2 == 0 ? "192.0.2.7" : "::1")
            let routes = bytes.first.map { $0 & 1 == 0 } ?? true ? Self.open : Self.guarded
            let reply = routes.answer(request)
            precondition((100...599).contains(reply.status), "a status outside HTTP's")
            precondition(
                reply.status != 200 || method == "GET" || method == "HEAD", "a \(method) answered 200")
        }
    ]

    /// A device's logbook with a track point, the model's hour and a sensor reading.
    static let settings: Settings = {
        let home = FuzzInput.scratch.appendingPathComponent("serve-home")
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": home.path]))
        try? FileManager.default.createDirectory(
            at: settings.logDatabase.deletingLastPathComponent(), withIntermediateDirectories: true)
        let now = Date()
        guard let logbook = try? Logbook(url: settings.logDatabase),
            let segment = try? logbook.startSegment(at: now.addingTimeInterval(-120), bootID: nil, reason: "start")
        else { fatalError("the fuzzer cannot write its logbook in \(home.path)") }
        let berlin = Coordinate(uncheckedLatitude: 52.520_07, longitude: 13.404_95)
        var fix = Fix(coordinate: berlin, source: .gps)
        fix.horizontalAccuracy = 4
        for age in [90.0, 60] {
            _ = try? logbook.append(
                TrackPoint(time: now.addingTimeInterval(-age), fix: fix, provider: "gpsd", segment: segment))
        }
        var values = AirValues()
        values.usAQI = 64
        values.pollutants = ["pm2_5": 18.4, "pm10": 25.1]
        let hour = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600)
        _ = try? logbook.append(
            AirRecord(
                hour: hour, loggedAt: now.addingTimeInterval(-60), coordinate: berlin,
                sentCoordinate: berlin.rounded(toDegrees: 0.01), place: "Berlin", values: values, source: .live,
                segment: segment))
        return settings
    }()

    /// The shipped gazetteer (`AIRLOC_FUZZ_GAZETTEER`, else data/gazetteer.bin from the package's root).
    static let gazetteer: Gazetteer = {
        let path = ProcessInfo.processInfo.environment["AIRLOC_FUZZ_GAZETTEER"] ?? "data/gazetteer.bin"
        do { return try Gazetteer(path: path) } catch {
            fatalError("the http-request target needs the gazetteer (\(path)): \(error) — run `make data` first")
        }
    }()

    static let open = DeviceRoutes(
        source: DeviceSource(settings: settings, gazetteer: gazetteer, watching: false), password: nil)
    static let guarded = DeviceRoutes(
        source: DeviceSource(settings: settings, gazetteer: gazetteer, watching: false), password: "secret")
}
