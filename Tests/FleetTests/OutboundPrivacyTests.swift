import Airloc
import FleetWire
import Foundation
import Geo
import Logbook
import Platform
import Readings
import Sensors
import Settings
import TestSupport
import Testing

@testable import Fleet

/// What a row looks like when it leaves the device (`FleetPublisher.outbound`): as
/// coarse as `[mqtt] position` says, decided in-process on the lines themselves.
@Suite struct OutboundPrivacyTests {
    static let hour = Date(timeIntervalSince1970: 1_795_003_200)
    static let exact = Coordinate(uncheckedLatitude: 52.523_456, longitude: 13.411_987)

    static let point: Logbook.OutboxRow = .track(
        TrackPoint(
            time: hour,
            fix: Fix(
                coordinate: exact, source: .gps, horizontalAccuracy: 4.5, altitudeMSL: 35, speed: 1.5, track: 90,
                mode: .threeD, satellitesUsed: 9),
            provider: "gpsd", segment: 1))

    static let reading: Logbook.OutboxRow = {
        var values = AirValues()
        values.usAQI = 41
        values.category = "good"
        return .air(
            AirRecord(
                hour: hour, loggedAt: hour.addingTimeInterval(120), coordinate: exact,
                sentCoordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.41),
                place: "Berlin, Berlin, Germany",
                values: values, source: .live, segment: 1))
    }()

    /// The line `row` leaves as under `position`, decoded; nil when it does not leave.
    static func outbound(_ row: Logbook.OutboxRow, _ position: MQTTSettings.Position) throws -> [String: Any]? {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var settings = Settings(directories: XDGDirectories(environment: ["HOME": directory.url.path]))
        settings.mqtt.position = position
        let publisher = FleetPublisher(
            logbook: try Logbook(url: directory.file("logbook.sqlite")),
            client: InProcessBroker(),
            settings: settings, deviceID: "test")
        guard let line = publisher.outbound(row) else { return nil }
        return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    @Test func exactSendsWhatTheLogbookHolds() throws {
        let track = try #require(try Self.outbound(Self.point, .exact))
        #expect(track["latitude"] as? Double == 52.523_456 && track["longitude"] as? Double == 13.411_987)
        #expect(track["altitude_m"] as? Double == 35)
    }

    /// The 0.01° grid (about 1 km), no altitude, an accuracy no better than half a cell.
    @Test func coarseRoundsEveryPositionToTheGrid() throws {
        let track = try #require(try Self.outbound(Self.point, .coarse))
        #expect(track["latitude"] as? Double == 52.52 && track["longitude"] as? Double == 13.41, "\(track)")
        #expect(track["altitude_m"] is NSNull)
        #expect((track["accuracy_m"] as? Double ?? 0) >= 555)
        let air = try #require(try Self.outbound(Self.reading, .coarse))
        #expect(air["latitude"] as? Double == 52.52 && air["longitude"] as? Double == 13.41, "\(air)")
        #expect(air["sent_latitude"] as? Double == 52.52 && air["us_aqi"] as? Int == 41)
    }

    /// No track row, and air rows with no position of any kind: neither where the
    /// device was nor the point sent to Open-Meteo nor the place's name.
    @Test func noneSendsNoPositionAtAll() throws {
        #expect(try Self.outbound(Self.point, .none) == nil)
        let air = try #require(try Self.outbound(Self.reading, .none))
        for key in ["latitude", "longitude", "sent_latitude", "sent_longitude", "place"] {
            #expect(air[key] is NSNull, "\(key): \(air[key] ?? "absent")")
        }
        #expect(air["us_aqi"] as? Int == 41 && air["category"] as? String == "good", "the reading itself goes")
    }

    static let measured: Logbook.OutboxRow = .sensor(
        SensorRecord(
            SensorSample(
                model: .pms5003t, device: "/dev/x", serial: nil,
                readings: [ParticulateValues(pm1_0: 4, pm2_5: 12, pm10: 20, temperatureC: 21.5, relativeHumidity: 45)],
                windowSeconds: 10, warmUpSeconds: 30, correction: .none, humidityLimit: 70),
            time: hour, timeSource: "gps", coordinate: exact, segment: 1))

    /// A measured reading leaves as coarse as the track: on the grid, or without position.
    @Test func measuredReadingsFollowThePositionSetting() throws {
        let exact = try #require(try Self.outbound(Self.measured, .exact))
        #expect(exact["latitude"] as? Double == 52.523_456 && exact["kind"] as? String == "sensor")
        let coarse = try #require(try Self.outbound(Self.measured, .coarse))
        #expect(coarse["latitude"] as? Double == 52.52 && coarse["longitude"] as? Double == 13.41, "\(coarse)")
        let none = try #require(try Self.outbound(Self.measured, .none))
        #expect(none["latitude"] is NSNull && none["longitude"] is NSNull && none["pm2_5"] as? Double == 12)
    }

    /// A sensor adds measured entities in the units Home Assistant accepts (µg/m³ with the
    /// MICRO SIGN, U+00B5: since 2025.7 the Greek mu is refused), for long-term statistics.
    @Test func aSensorAddsMeasuredEntitiesInHomeAssistantsUnits() throws {
        let discovery = HomeAssistantDiscovery(
            deviceID: "pi7", prefix: "airloc/pi7", discoveryPrefix: "homeassistant", tracker: false,
            measured: .pms5003t)
        let configs = discovery.messages.filter { $0.topic.contains("/measured_") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload.utf8)) as? [String: Any]
        }
        #expect(
            Set(configs.compactMap { $0["device_class"] as? String })
                == ["pm1", "pm25", "pm10", "temperature", "humidity"])
        for config in configs {
            #expect(
                config["state_topic"] as? String == "airloc/pi7/measured"
                    && config["state_class"] as? String == "measurement")
            if let unit = config["unit_of_measurement"] as? String, unit.hasSuffix("g/m³") {
                #expect(unit.unicodeScalars.first?.value == 0xB5, "µ is U+00B5: \(unit)")
            }
        }
        let sds = HomeAssistantDiscovery(
            deviceID: "pi7", prefix: "airloc/pi7", discoveryPrefix: "homeassistant", tracker: false, measured: .sds011)
        #expect(sds.messages.filter { $0.topic.contains("/measured_") }.count == 2, "an SDS011 measures PM2.5 and PM10")
        let none = HomeAssistantDiscovery(
            deviceID: "pi7", prefix: "airloc/pi7", discoveryPrefix: "homeassistant", tracker: false)
        #expect(!none.messages.contains { $0.topic.contains("/measured_") })
    }

    /// Home Assistant shows the category as the report prints it.
    @Test func theStateNamesTheCategoryAsTheEPADoes() throws {
        guard case .air(var record) = Self.reading else { return }
        record.values.usAQI = 137
        record.values.category = "unhealthy_for_sensitive_groups"
        let state = LiveTopics.state(record)
        #expect(state["category_name"] as? String == "Unhealthy for Sensitive Groups")
        #expect(state["us_aqi"] as? Int == 137)
    }
}
