import Airloc
import FleetStore
import FleetWire
import Foundation
import Geo
import HTTPService
import Settings
import Testing

@testable import Serve

/// What the fleet page says of its devices, in-process: `/api/last`'s objects, the day's
/// colours, the share links' tokens and the windows a request asks for.
@Suite struct FleetDocumentsTests {
    let now = Date(timeIntervalSince1970: 1_796_300_000)

    func device(_ id: String, trackAge: Double?, model: Int?, measuredAge: Double? = nil, measured: Int? = nil)
        throws -> LastPosition
    {
        var last = LastPosition(deviceID: id)
        last.time = trackAge.map { now.addingTimeInterval(-$0) }
        last.coordinate = try Coordinate(latitude: 52.520_08, longitude: 13.404_95)
        last.modelAQI = model
        if let measuredAge { last.measured = (now.addingTimeInterval(-measuredAge), measured, 14.2) }
        return last
    }

    func objects(_ devices: [LastPosition], _ serve: ServeSettings = ServeSettings()) throws -> [[String: Any]] {
        let text = FleetLast.json(devices, now: now, serve: serve)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test func aFreshReadingLeadsAnOldOneFallsBackToTheModelAndAgesSayStale() throws {
        let all = try objects([
            try device("fresh", trackAge: 5, model: 40, measuredAge: 30, measured: 120),
            try device("old-reading", trackAge: 5, model: 40, measuredAge: 601, measured: 120),
            try device("silent", trackAge: 700, model: 160),
            try device("never", trackAge: nil, model: nil),
        ])
        #expect(all.map { $0["device_id"] as? String } == ["fresh", "old-reading", "silent", "never"])
        #expect(all[0]["us_aqi"] as? Int == 120 && all[0]["aqi_source"] as? String == "measured")
        #expect(all[0]["pm2_5_measured"] as? Double == 14.2 && all[0]["colour"] as? String == "#FF7E00")
        #expect(all[1]["us_aqi"] as? Int == 40 && all[1]["aqi_source"] as? String == "model")
        #expect(all[1]["pm2_5_measured"] is NSNull, "a reading ten minutes old speaks for nothing")
        #expect(all[0]["age_seconds"] as? Int == 5 && all[0]["stale"] as? Bool == false)
        #expect(all[2]["age_seconds"] as? Int == 700 && all[2]["stale"] as? Bool == true, "past 10 min")
        #expect(all[3]["time"] is NSNull && all[3]["us_aqi"] is NSNull && all[3]["stale"] as? Bool == true)
        #expect(all[3]["colour"] as? String == "#9E9E9E")
        for object in all {
            #expect(
                Set(object.keys) == [
                    "device_id", "time", "latitude", "longitude", "us_aqi", "aqi_source", "category", "colour",
                    "pm2_5_measured", "age_seconds", "stale",
                ])
        }
    }

    /// A station without GPS (or with a CO₂ sensor alone) is watched by its newest row of
    /// any kind: the stale-device alert can fire for it, and it is not called stale while
    /// it speaks.
    @Test func aDeviceWithoutTrackRowsIsDatedByItsNewestRowOfAnyKind() throws {
        var station = try device("station", trackAge: nil, model: 40)
        station.newestRow = now.addingTimeInterval(-20)
        let quiet = try device("quiet", trackAge: nil, model: nil)
        let metrics = FleetLast.metrics([station, quiet], now: now, openMetrics: false)
        #expect(
            metrics.contains("airloc_fleet_device_last_row_timestamp_seconds{device=\"station\"} 1796299980"),
            "\(metrics)")
        #expect(!metrics.contains("{device=\"quiet\"} "), "a device that never sent a row has no time: \(metrics)")
        let all = try objects([station])
        #expect(all[0]["age_seconds"] as? Int == 20 && all[0]["stale"] as? Bool == false, "\(all)")
    }

    @Test func positionsAreAsServeAllowsAndIdsAreQuoted() throws {
        var serve = ServeSettings()
        serve.position = .coarse
        serve.staleAfter = 3600
        let coarse = try objects([try device("a\"b\\c\n", trackAge: 700, model: 40)], serve)
        #expect(coarse[0]["device_id"] as? String == "a\"b\\c\n")
        #expect(coarse[0]["latitude"] as? Double == 52.52 && coarse[0]["longitude"] as? Double == 13.4)
        #expect(coarse[0]["stale"] as? Bool == false, "stale-after = 1h")
        serve.position = .none
        let hidden = try objects([try device("a", trackAge: 5, model: 40)], serve)
        #expect(hidden[0]["latitude"] is NSNull && hidden[0]["longitude"] is NSNull)
    }

    /// Each point carries the readings the query found in force at it (FleetMapEndToEndTests
    /// proves the query on PostgreSQL): the reading while at most 10 minutes old, else the
    /// model hour for two hours, else grey.
    @Test func aPointIsColouredByTheReadingInForceThenTheModelHourThenGrey() throws {
        let start = now
        let model = FleetTrackPoint.Reading(time: start.addingTimeInterval(300), aqi: 20)
        let measured = FleetTrackPoint.Reading(time: start.addingTimeInterval(1200), aqi: 160)
        let readings: [(FleetTrackPoint.Reading?, FleetTrackPoint.Reading?)] = [
            (nil, nil), (model, nil), (model, measured), (model, measured), (model, measured),
        ]
        let points = try readings.enumerated().map { offset, reading in
            FleetTrackPoint(
                time: start.addingTimeInterval(Double(offset) * 600),
                coordinate: try Coordinate(latitude: 52.5 + Double(offset) / 1000, longitude: 13.4), segment: "x/1",
                model: reading.0, measured: reading.1)
        }
        let text = FleetMap.json(points, decimals: nil)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let colours = (document["points"] as? [[Any]] ?? []).map { $0[3] as? String }
        // 2400 s: the reading is 20 minutes old, the model hour again.
        #expect(colours == ["#9E9E9E", "#00E400", "#FF0000", "#FF0000", "#00E400"])
        let late = FleetTrackPoint(
            time: start.addingTimeInterval(7500), coordinate: try Coordinate(latitude: 52.5, longitude: 13.4),
            segment: "x/1", model: model)
        #expect(FleetMap.json([late], decimals: nil).contains(FleetMap.grey), "a model hour two hours old is none")
        let coarse = FleetMap.json(points, decimals: 2)
        #expect(coarse.contains("[52.50,13.40,\"x/1\""), "\(coarse.prefix(80))")
    }

    @Test func aTokenIsRandomBase64urlOfItsOwnShapeAndALinkSaysItsState() throws {
        let tokens = (0..<50).map { _ in ShareLink.newToken() }
        #expect(Set(tokens).count == 50)
        #expect(tokens.allSatisfy(ShareLink.isToken))
        #expect(!ShareLink.isToken("short") && !ShareLink.isToken(String(repeating: "a", count: 42) + "="))
        #expect(!ShareLink.isToken(String(repeating: "a", count: 42) + "'"))
        var link = ShareLink(
            id: "0123456789ab", deviceID: "d", since: now, until: now.addingTimeInterval(60),
            expires: now.addingTimeInterval(10), created: now)
        #expect(link.state(at: now) == "active")
        #expect(link.state(at: now.addingTimeInterval(10)) == "expired")
        link.revoked = now
        #expect(link.state(at: now) == "revoked")
    }

    @Test func aWindowIsTheLastDayUnlessAskedAndNeverEmpty() throws {
        let day = try #require(FleetRoutes.window([:], now: now.addingTimeInterval(0.4)))
        #expect(day.since == now.addingTimeInterval(-86_400) && day.until == now.addingTimeInterval(1))
        let asked = try #require(
            FleetRoutes.window(["since": "2026-12-01T00:00Z", "until": "2026-12-02T00:00Z"], now: now))
        #expect(asked.until.timeIntervalSince(asked.since) == 86_400)
        #expect(FleetRoutes.window(["since": "yesterday"], now: now) == nil)
        #expect(FleetRoutes.window(["since": "2026-12-02T00:00Z", "until": "2026-12-01T00:00Z"], now: now) == nil)
    }

    @Test func assetsNeedNoPasswordButEverythingElseDoes() throws {
        let fleet = try FleetDatabase(
            settings: {
                var collect = CollectSettings()
                collect.database = "host=/nonexistent port=1 connect_timeout=1"
                return collect
            }())
        let routes = FleetRoutes(fleet: fleet, serve: ServeSettings(), password: "secret", clock: { now })
        #expect(routes.answer(ServedRequest(path: "/fleet.js")).status == 200)
        #expect(routes.answer(ServedRequest(path: "/page.css")).status == 200)
        #expect(routes.answer(ServedRequest(path: "/api/last")).status == 401)
        #expect(routes.answer(ServedRequest(path: "/")).status == 401)
        #expect(routes.answer(ServedRequest(method: "POST", path: "/")).status == 405)
        // A malformed token is refused before any query (the database here cannot be reached).
        #expect(routes.answer(ServedRequest(path: "/api/track", arguments: ["share": "nope"])).status == 404)
        // The database unreachable: 503 with a reason, never a crash.
        let down = routes.answer(
            ServedRequest(
                path: "/api/last",
                headers: ["authorization": "Basic " + Data("airloc:secret".utf8).base64EncodedString()]))
        #expect(down.status == 503 && down.text.contains("the collector's database"), "\(down.text)")
    }
}
