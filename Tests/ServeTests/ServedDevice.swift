import Airloc
import FleetWire
import Foundation
import Gazetteer
import Geo
import HTTPService
import Logbook
import Platform
import Readings
import Sensors
import Settings
import TestSupport
import Web

@testable import Serve

/// A device to serve in-process: a logbook in a temporary home with a track point in
/// Berlin, the model's hour (US AQI 64) and an SDS011 reading (PM2.5 40.2) a minute ago,
/// and the routes over it.
struct ServedDevice {
    static let gazetteer = Result { try Gazetteer(path: PackagePaths.file("data/gazetteer.bin").path) }
    static let berlin = Coordinate(uncheckedLatitude: 52.520_07, longitude: 13.404_95)

    let home: TemporaryDirectory
    var settings: Settings
    let logbook: Logbook?
    let now = Date()

    init(rows: Bool = true, configure: (inout Settings) -> Void = { _ in }) throws {
        home = try TemporaryDirectory()
        settings = Settings(directories: XDGDirectories(environment: ["HOME": home.url.path]))
        settings.airQualityURL = ServiceURL(string: "http://127.0.0.1:9")!
        configure(&settings)
        guard rows else {
            logbook = nil
            return
        }
        try FileManager.default.createDirectory(
            at: settings.logDatabase.deletingLastPathComponent(), withIntermediateDirectories: true)
        let logbook = try Logbook(url: settings.logDatabase)
        let segment = try logbook.startSegment(at: now.addingTimeInterval(-120), bootID: nil, reason: "start")
        var fix = Fix(coordinate: Self.berlin, source: .gps)
        fix.horizontalAccuracy = 4
        fix.altitudeMSL = 38.5
        fix.mode = .threeD
        try logbook.append(TrackPoint(time: now.addingTimeInterval(-90), fix: fix, provider: "gpsd", segment: segment))
        try logbook.append(TrackPoint(time: now.addingTimeInterval(-60), fix: fix, provider: "gpsd", segment: segment))
        var values = AirValues()
        values.usAQI = 64
        values.category = "moderate"
        values.pollutants = ["pm2_5": 18.4, "pm10": 25.1, "ozone": 51]
        let hour = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600)
        try logbook.append(
            AirRecord(
                hour: hour, loggedAt: now.addingTimeInterval(-60), coordinate: Self.berlin,
                sentCoordinate: Self.berlin.rounded(toDegrees: 0.01), place: "Berlin", values: values, source: .live,
                segment: segment))
        try logbook.append(Self.reading(40.2, model: .sds011, at: now.addingTimeInterval(-60), segment: segment))
        self.logbook = logbook
    }

    static func reading(_ pm25: Double, model: SensorModel, at time: Date, segment: Int64?) -> SensorRecord {
        let sample = SensorSample(
            model: model, device: "/dev/x", serial: nil,
            readings: [ParticulateValues(pm1_0: pm25 / 2, pm2_5: pm25, pm4_0: pm25 + 2, pm10: pm25 + 5)],
            windowSeconds: 10, warmUpSeconds: 30, correction: .none, humidityLimit: 70)
        return SensorRecord(sample, time: time, timeSource: "gps", coordinate: berlin, segment: segment)
    }

    /// The routes, answering at `later` seconds after the rows were written (with
    /// `position`: as `[serve] position` says, over the same rows).
    func routes(
        password: String? = nil, later: TimeInterval = 0, position: MQTTSettings.Position? = nil
    ) throws -> DeviceRoutes {
        var settings = self.settings
        if let position { settings.serve.position = position }
        return DeviceRoutes(
            source: DeviceSource(settings: settings, gazetteer: try Self.gazetteer.get(), watching: false),
            password: password, clock: { [now] in now.addingTimeInterval(later) })
    }

    func get(_ path: String, _ routes: DeviceRoutes? = nil, headers: [String: String] = [:]) async throws
        -> ServedReply
    {
        // The server hands the handler the path and the query apart (libmicrohttpd splits them).
        let parts = path.split(separator: "?", maxSplits: 1)
        let arguments = Dictionary(
            (parts.count > 1 ? parts[1].split(separator: "&") : []).map { pair in
                let field = pair.split(separator: "=", maxSplits: 1)
                return (String(field[0]), field.count > 1 ? String(field[1]).removingPercentEncoding ?? "" : "")
            }, uniquingKeysWith: { _, last in last })
        let routes = try routes ?? self.routes()
        let request = ServedRequest(path: String(parts[0]), headBytes: 100, headers: headers, arguments: arguments)
        // On a thread of its own, as the server answers on a connection's: the routes block.
        return try await offPool { routes.answer(request) }
    }

    func json(_ path: String, _ routes: DeviceRoutes? = nil) async throws -> [String: Any] {
        let reply = try await get(path, routes)
        return (try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]) ?? [:]
    }

    func remove() { home.remove() }
}
