import Airloc
import Foundation
import Geo
import Logbook
import Platform
import Readings
import Sensors
import Settings
import TestSupport
import Testing
import Web

@testable import Uploads

/// CO₂ and climate readings on the public maps, in-process against a server of the test's
/// own: sensor.community gets each airrohr family on its own pin (a BME280's pressure in
/// Pa), a model airrohr does not read is passed over without holding the cursor back, and
/// openSenseMap gets the `sensor-co2` … `sensor-pressure` ids.
@Suite struct ClimateUploadTests {
    typealias Server = UploaderTests.ScriptedServer

    static let time = Date(timeIntervalSince1970: 1_795_000_000)

    static func logbook(_ directory: TemporaryDirectory) throws -> Logbook {
        let logbook = try Logbook(url: directory.file("logbook.sqlite"))
        let place = Coordinate(uncheckedLatitude: 52.52, longitude: 13.405)
        let rows: [(String, ClimateModel, ClimateValues)] = [
            ("room", .bme280, ClimateValues(temperatureC: 21.375, relativeHumidity: 45.123, pressureHPa: 1013.25)),
            ("co2", .mhZ19, ClimateValues(co2PPM: 923)),
            ("desk", .scd30, ClimateValues(co2PPM: 845, temperatureC: 21.5, relativeHumidity: 41)),
        ]
        for (offset, (name, model, values)) in rows.enumerated() {
            let sample = ClimateSample(model: model, source: "/dev/x", readings: [values], windowSeconds: 10)
            try logbook.append(
                SensorRecord(
                    named: name, sample, time: time.addingTimeInterval(Double(offset)), timeSource: "gps",
                    coordinate: place, segment: nil))
        }
        return logbook
    }

    static func uploader(_ logbook: Logbook, _ upload: UploadSettings, server: Server) throws -> Uploader {
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": "/nonexistent"]))
        settings.uploads = [upload]
        return Uploader(
            plan: try UploadPlan(upload, settings: settings, deviceID: "4711"), logbook: logbook, sender: server,
            time: ManualTime())
    }

    static func values(_ request: HTTPRequest) -> [String: String] {
        let body = try? JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
        let list = body?["sensordatavalues"] as? [[String: String]] ?? []
        return Dictionary(list.compactMap { entry in entry["value_type"].map { ($0, entry["value"] ?? "") } }) {
            first, _ in first
        }
    }

    @Test func sensorCommunityGetsEachFamilyOnItsPin() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.logbook(directory)
        var upload = UploadSettings(name: "luftdaten")
        (upload.type, upload.url, upload.maxAge) = (.sensorCommunity, "http://127.0.0.1:9/", 0)
        let server = Server()
        var uploader = try Self.uploader(logbook, upload, server: server)
        #expect(await uploader.drain() == nil)
        let pushes = server.received.map { request in
            (request.headers.first { $0.hasPrefix("X-Pin") } ?? "", Self.values(request))
        }
        #expect(pushes.map(\.0) == ["X-Pin: 11", "X-Pin: 17"], "no pin for the MH-Z19: \(pushes)")
        #expect(pushes.first?.1 == ["temperature": "21.38", "humidity": "45.1", "pressure": "101325"])
        #expect(pushes.last?.1 == ["co2_ppm": "845", "temperature": "21.5", "humidity": "41"])
        // The MH-Z19's row was passed over, not left to hold the cursor.
        #expect(try logbook.uploadCursor("luftdaten", kind: .sensor) == 3)
    }

    @Test func openSenseMapGetsTheClimateSensorIDs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.logbook(directory)
        var upload = UploadSettings(name: "osem")
        let token = directory.file("osem-token")
        try "token\n".write(to: token, atomically: true, encoding: .utf8)
        chmod(token.path, 0o600)
        (upload.type, upload.url, upload.box) = (.openSenseMap, "http://127.0.0.1:9/", "box1")
        upload.credentialsFile = token.path
        upload.sensors = ["co2": "c1", "temperature": "t1", "humidity": "h1", "pressure": "p1"]
        let server = Server()
        var uploader = try Self.uploader(logbook, upload, server: server)
        #expect(await uploader.drain() == nil)
        let body = try #require(server.received.first?.body)
        let measurements = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
        let sent = measurements.map { "\($0["sensor"] ?? "") \($0["value"] ?? "")" }.sorted()
        #expect(
            sent == ["c1 845", "c1 923", "h1 41", "h1 45.1", "p1 1013.25", "t1 21.38", "t1 21.5"], "\(sent)")
    }
}
