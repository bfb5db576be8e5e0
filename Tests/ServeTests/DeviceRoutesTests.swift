import Airloc
import Foundation
import Geo
import HTTPService
import Logbook
import Readings
import Sensors
import TestSupport
import Testing
import Web

@testable import Serve

/// What the device's server answers, in-process: the access rules, the served set, the
/// documents and the position each shows.
@Suite struct DeviceRoutesTests {
    @Test func onlyGetAndHeadOnlyTheServedPathsAndABoundedHead() async throws {
        let device = try ServedDevice()
        defer { device.remove() }
        let routes = try device.routes()
        let post = try await Self.answer(routes, ServedRequest(method: "POST", path: "/"))
        #expect(post.status == 405 && post.headers.contains { $0 == ("Allow", "GET, HEAD") })
        #expect(try await Self.answer(routes, ServedRequest(method: "HEAD", path: "/api/status")).status == 200)
        for path in ["/../etc/passwd", "/leaflet/../../../etc/passwd", "/leaflet/leaflet.js/..", "/api", "/x"] {
            #expect(try await Self.answer(routes, ServedRequest(path: path)).status == 404, "\(path)")
        }
        #expect(try await Self.answer(routes, ServedRequest(path: "/", headBytes: 8193)).status == 431)
        #expect(try await Self.answer(routes, ServedRequest(path: "/", headBytes: 8192)).status == 200)
        let reply = try await Self.answer(routes, ServedRequest(path: "/nope"))
        #expect(reply.headers.contains { $0 == ("X-Content-Type-Options", "nosniff") })
        #expect(reply.headers.contains { $0.0 == "Content-Security-Policy" && $0.1.hasPrefix("default-src 'self'") })
    }

    @Test func thePasswordIsAskedOfEveryPathAndCheckedExactly() async throws {
        let device = try ServedDevice()
        defer { device.remove() }
        let routes = try device.routes(password: "s3cret pass")
        func basic(_ text: String) -> [String: String] {
            ["authorization": "Basic " + Data(text.utf8).base64EncodedString()]
        }
        for path in ["/", "/metrics", "/api/now", "/data.json", "/leaflet/leaflet.js", "/nope"] {
            let reply = try await device.get(path, routes)
            #expect(reply.status == 401, "\(path)")
            #expect(reply.headers.contains { $0.0 == "WWW-Authenticate" && $0.1.hasPrefix("Basic") })
        }
        for wrong in ["airloc:s3cret", "airloc:s3cret pass!", "root:s3cret pass", "airloc:", ""] {
            #expect(try await device.get("/api/status", routes, headers: basic(wrong)).status == 401, "\(wrong)")
        }
        #expect(try await device.get("/api/status", routes, headers: ["authorization": "Bearer x"]).status == 401)
        #expect(try await device.get("/api/status", routes, headers: basic("airloc:s3cret pass")).status == 200)
    }

    @Test func theNowDocumentIsTheReportOfTheLogbooksLatestRows() async throws {
        let device = try ServedDevice()
        defer { device.remove() }
        let now = try await device.json("/api/now")
        #expect(now["schema"] as? String == "airloc.report/1")
        let location = now["location"] as? [String: Any] ?? [:]
        #expect(location["latitude"] as? Double == 52.520_07 && location["longitude"] as? Double == 13.404_95)
        #expect((now["place"] as? [String: Any])?["name"] as? String == "Berlin", "\(now)")
        let air = now["air_quality"] as? [String: Any] ?? [:]
        #expect(air["us_aqi"] as? Int == 64, "the model's hour from the logbook: \(now)")
        let measured = now["measured"] as? [String: Any] ?? [:]
        #expect(measured["pm2_5"] as? Double == 40.2 && measured["leads"] as? Bool == true, "\(measured)")
        #expect(measured["headline_us_aqi"] as? Int == 113, "PM2.5 40.2 is AQI 113: \(measured)")
        let status = try await device.json("/api/status")
        #expect(status["schema"] as? String == "airloc.log-status/1" && status["track_rows"] as? Int == 2)
    }

    @Test func theCardIsOnThePageWithItsCategoryAndAnEscapedError() async throws {
        let device = try ServedDevice()
        defer { device.remove() }
        try device.logbook?.recordError("gpsd said <script>alert(1)</script> & left", at: device.now)
        let page = try await device.get("/").text
        #expect(page.contains("<span id=\"place\">Berlin, Berlin, Germany</span>"), "\(page)")
        #expect(
            page.contains("<span id=\"aqi\">113</span> <span id=\"category\">Unhealthy for Sensitive Groups</span>"))
        #expect(page.contains("class=\"card cat-unhealthy_for_sensitive_groups\""))
        #expect(page.contains("gpsd said &lt;script&gt;alert(1)&lt;/script&gt; &amp; left"))
        #expect(!page.contains("<script>alert"), "no text from a file becomes markup")
        #expect(!page.contains("style=") && !page.contains("<script>\n"), "no inline style or script (the CSP)")
        #expect(page.contains("<dd id=\"measured\">PM2.5 40.2 µg/m³"))
    }

    @Test func withoutALogbookThePageSaysHowToMakeOneAndMetricsLeaveOutWhatIsUnknown() async throws {
        let device = try ServedDevice(rows: false)
        defer { device.remove() }
        let page = try await device.get("/").text
        #expect(page.contains("<code>airloc log run</code> makes one"), "\(page)")
        let metrics = try await device.get("/metrics").text
        let samples = metrics.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(samples == ["airloc_build_info{version=\"\(AirlocVersion.string)\"} 1"], "\(metrics)")
        #expect(try await device.get("/api/now").status == 404)
        #expect(try await device.get("/api/status").status == 404)
    }

    @Test func aLoggerStoppedDaysAgoShowsItsLastDay() async throws {
        let device = try ServedDevice()
        defer { device.remove() }
        for (later, points) in [(0.0, 2), (3 * 86_400, 2), (3 * 86_400, 0)] {
            let routes = try device.routes(later: later)
            let path = points == 0 ? "/api/map?since=\(UTCTime.iso8601Seconds(device.now))" : "/api/map"
            let map = try await device.json(path, routes)
            #expect((map["points"] as? [Any])?.count == points, "\(later) s on, \(path): \(map)")
        }
        #expect(try await device.get("/day.svg", try device.routes(later: 3 * 86_400)).status == 200)
    }

    @Test func coarseShowsTheHundredthDegreeGridEverywhere() async throws {
        let device = try ServedDevice { $0.serve.position = .coarse }
        defer { device.remove() }
        let location = try await device.json("/api/now")["location"] as? [String: Any] ?? [:]
        #expect(location["latitude"] as? Double == 52.52 && location["longitude"] as? Double == 13.40, "\(location)")
        #expect(location["altitude_msl_m"] == nil || location["altitude_msl_m"] is NSNull)
        let metrics = try await device.get("/metrics").text
        #expect(
            metrics.contains("airloc_latitude_degrees 52.52\n") && metrics.contains("airloc_longitude_degrees 13.4\n"))
        let track = try await device.get("/api/track").text
        #expect(track.contains("[13.4,52.52]") && !track.contains("13.40495"), "\(track)")
        let data = try await device.get("/data.json").text
        #expect(
            data.contains("{\"value_type\":\"GPS_lat\",\"value\":\"52.52\"}") && !data.contains("GPS_height"), "\(data)"
        )
        let map = try await device.get("/api/map").text
        #expect(!map.contains("52.52007"))
    }

    @Test func noneShowsNoPositionAnywhere() async throws {
        let device = try ServedDevice { $0.serve.position = .none }
        defer { device.remove() }
        let now = try await device.json("/api/now")
        #expect((now["location"] as? [String: Any])?["latitude"] is NSNull, "\(now)")
        #expect((now["sent_coordinate"] as? [String: Any])?["latitude"] is NSNull)
        var everything: [String] = []
        for path in ["/", "/metrics", "/data.json", "/api/now", "/api/map"] {
            everything.append(try await device.get(path).text)
        }
        for text in everything {
            #expect(!text.contains("52.52") && !text.contains("13.40"), "\(text)")
        }
        #expect(try await device.get("/api/track").status == 404)
        #expect(everything[1].contains("airloc_aqi{scale=\"us\",source=\"measured\"} 113"), "the air is still served")
    }

    @Test func dataJSONSpeaksAirrohrsValueTypesForEachFamily() async throws {
        for (model, types) in [
            (SensorModel.sds011, ["SDS_P1", "SDS_P2"]), (.pms5003, ["PMS_P0", "PMS_P1", "PMS_P2"]),
            (.sps30, ["SPS30_P0", "SPS30_P1", "SPS30_P2", "SPS30_P4"]),
        ] {
            let device = try ServedDevice()
            defer { device.remove() }
            try device.logbook?.append(ServedDevice.reading(12.3, model: model, at: device.now, segment: nil))
            let document = try await device.json("/data.json")
            #expect(document["software_version"] as? String == "airloc-\(AirlocVersion.string)")
            #expect(document["age"] as? String == "0", "\(document)")
            let values = (document["sensordatavalues"] as? [[String: String]] ?? []).reduce(into: [:]) {
                $0[$1["value_type"] ?? ""] = $1["value"]
            }
            #expect(types.allSatisfy { values[$0] != nil }, "\(model): \(values)")
            #expect(values[types.count == 2 ? "SDS_P2" : types[2]] == "12.30", "PM2.5, two decimals: \(values)")
            #expect(values["GPS_lat"] == "52.520070" && values["GPS_height"] == "38.50", "\(values)")
        }
    }

    /// `routes`' answer, made on a thread of its own as the server makes it on a connection's.
    static func answer(_ routes: DeviceRoutes, _ request: ServedRequest) async throws -> ServedReply {
        try await offPool { routes.answer(request) }
    }
}
