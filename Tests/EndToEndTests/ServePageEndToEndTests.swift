import Foundation
import TestSupport
import Testing

/// The device's page in headless Chromium (selenium, Tests/Clients/device_page.py) while a
/// real logger writes: gpsd replaying NMEA through gpsfake, a PMS5003T double on a
/// pseudo-terminal and the air double. The card says what `/api/now` says, the day's
/// track and the figure are drawn, the next reading arrives without a reload, the page
/// fits a 360 px phone, and the browser reports no error (a CSP violation would be one).
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "chromedriver")))
struct ServePageEndToEndTests {
    @Test func thePageShowsTheLoggersDayAndItsNextReadingLive() async throws {
        let world = try await AirlocWorld(config: "")
        defer { world.stop() }
        // A BME280 beside the particulate sensor ([sensor.room], a sysfs-shaped directory).
        let room = try NowClimateEndToEndTests.bme280(world.home)
        try
            (LogSensorEndToEndTests.config + "\n[serve]\nlisten = 127.0.0.1:0\n"
            + "[sensor.room]\nmodel = bme280\niio = \(room)\nsample-seconds = 1\ninterval = 2\n").write(
                to: world.home.file("config/airloc/airloc.conf"), atomically: true, encoding: .utf8)
        let link = world.home.file("airloc-pm").path
        var environment = world.environment
        environment["AIRLOC_SENSOR_DEVICE"] = link
        let air = world.home.file("pm25").path
        let sensor = try await SensorDouble.start("pms5003t", pm25: 30, humidity: 55, link: link, pm25File: air)
        defer { sensor.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: environment)
        _ = try await LogEndToEndTests.waitForStatus(world, "a track to draw") {
            ($0["track_rows"] as? Int ?? 0) >= 3
        }
        try await Poll.until("a reading of each sensor") {
            let rows = try await LogClimateEndToEndTests.rows(world)
            return !LogClimateEndToEndTests.named(rows, "sensor").isEmpty
                && !LogClimateEndToEndTests.named(rows, "room").isEmpty || !logger.isRunning
        }
        let server = try ChildProcess(AirlocBinary.path, ["serve"], environment: environment)
        let port = try await ServeEndToEndTests.port(of: server)

        let page = try await ChildProcess.run(
            "/usr/bin/python3",
            [PackagePaths.file("Tests/Clients/device_page.py").path, "\(port)", world.home.url.path, air],
            environment: [:], timeout: 600)
        #expect(page.status == 0, "\(page)")
        let seen = (try? JSONSerialization.jsonObject(with: Data(page.stdout.utf8)) as? [String: Any]) ?? [:]
        let now = seen["api_now"] as? [String: Any] ?? [:]
        let measured = now["measured"] as? [String: Any] ?? [:]
        let model = now["air_quality"] as? [String: Any] ?? [:]
        // The card leads with what the report leads with: the measured index when it leads.
        let leads = measured["leads"] as? Bool == true
        let aqi = leads ? measured["headline_us_aqi"] as? Int : model["us_aqi"] as? Int
        let category = (leads ? measured : model)["category"] as? String
        #expect(aqi != nil, "the report has an index: \(now)")
        #expect(seen["aqi"] as? String == aqi.map(String.init), "\(seen)")
        #expect(seen["card_class"] as? String == "card cat-\(category ?? "?")", "\(seen)")
        #expect(
            seen["category"] as? String == (leads ? measured : model)["category_name"] as? String
                ?? (leads ? measured : model)["category"] as? String, "\(seen)")
        #expect(seen["place"] as? String == (now["place"] as? [String: Any])?["display_name"] as? String, "\(seen)")
        #expect((seen["measured"] as? String ?? "").contains("PM2.5 30.0"), "\(seen)")

        #expect(seen["here_marker"] as? Int == 1 && (seen["track_paths"] as? Int ?? 0) >= 1, "the day's track: \(seen)")
        // The day's figure reads at a desktop's width and a phone's: asked for the width it
        // is shown at, drawn at the 80 px step at or below it (kept per step), its smallest
        // label at 11 CSS px or more as rendered.
        for (width, key) in [(1280, "chart_desktop"), (360, "chart_phone")] {
            let figure = seen[key] as? [String: Any] ?? [:]
            #expect((figure["smallest_px"] as? Double ?? 0) >= 11, "at \(width) px: \(figure)")
            let asked = (figure["src"] as? String ?? "").components(separatedBy: "width=").last.flatMap { Int($0) }
            let own = figure["own_width"] as? Int ?? -1
            #expect(
                asked.map { own <= $0 && own > $0 - 80 && own % 80 == 0 } == true,
                "drawn for its width's step at \(width) px: \(figure)")
        }

        // Live: the next reading, with no reload.
        #expect((seen["live_measured_age"] as? String ?? "").hasPrefix("just now"), "\(seen)")
        #expect(seen["same_load"] as? String == "yes", "arrived without a reload: \(seen)")
        // The BME280 on its own line, at load and live; the PM line untouched by its rows.
        #expect((seen["sensor-room"] as? String ?? "").hasPrefix("21.4 °C · 45 % humidity · 1013.3 hPa (BME280"))
        #expect(
            (seen["live_sensor_room"] as? String ?? "").hasPrefix(
                "21.4 °C · 45 % humidity · 1013.3 hPa (BME280, just now"),
            "\(seen)")
        #expect((seen["measured_after_climate"] as? String ?? "").contains("PM2.5 30.0"), "\(seen)")
        let before = Self.measuredRows(seen["rows_rendered"] as? String)
        #expect(before >= 1, "the panel as rendered: \(seen)")
        #expect(Self.measuredRows(seen["live_rows"] as? String) > before, "\(seen)")
        if let arrived = seen["arrived_ms"] as? Double, let stamp = seen["live_measured_time"] as? String,
            let time = ISO8601DateFormatter().date(from: stamp)
        {
            // Measured, not asserted: from the reading's time to the page showing it.
            print(
                "note: a reading reached the page \(Int(arrived - time.timeIntervalSince1970 * 1000)) ms after its time"
            )
        }

        // The air changed under the open page: the whole card followed, as /api/now says it.
        let changed = (seen["changed_api_now"] as? [String: Any])?["measured"] as? [String: Any] ?? [:]
        #expect(changed["leads"] as? Bool == true && changed["pm2_5"] as? Double == 60, "\(changed)")
        #expect(seen["changed_aqi"] as? String == (changed["headline_us_aqi"] as? Int).map(String.init), "\(seen)")
        #expect(seen["changed_category"] as? String == changed["category_name"] as? String, "\(seen)")
        #expect(
            seen["changed_announced"] as? String
                == "Air quality index \(seen["changed_aqi"] as? String ?? "?"), \(seen["changed_category"] as? String ?? "?")",
            "the change is said to a screen reader: \(seen["changed_announced"] ?? "nothing")")
        #expect(seen["changed_card_class"] as? String == "card cat-\(changed["category"] as? String ?? "?")", "\(seen)")
        #expect(seen["changed_advice"] as? String == changed["advice"] as? String, "\(seen)")
        #expect(seen["changed_same_load"] as? String == "yes", "no reload: \(seen)")
        // Ages tick on their own: 100 s is "2 min ago" without a reload or an event.
        #expect(seen["ticked_age"] as? String == "2 min ago", "\(seen)")

        #expect(
            seen["phone_inner_width"] as? Int == 360 && seen["phone_scroll_width"] as? Int == 360,
            "no sideways scrolling at 360 px: \(seen)")
        #expect((seen["phone_card_width"] as? Int ?? 999) <= 360, "\(seen)")
        #expect((seen["errors"] as? [String]) == [], "the browser's console: \(seen["errors"] ?? "?")")
        for shot in ["serve-desktop.png", "serve-phone.png", "serve-phone-day.png"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: world.home.file(shot).path)[.size]) as? Int
            #expect((size ?? 0) > 10_000, "\(shot): \(size ?? 0) bytes")
            // docs/'s screenshots are these: AIRLOC_SCREENSHOTS=docs keeps them.
            if let keep = ProcessInfo.processInfo.environment["AIRLOC_SCREENSHOTS"] {
                let kept = URL(fileURLWithPath: keep).appendingPathComponent(shot)
                try? FileManager.default.removeItem(at: kept)
                try FileManager.default.copyItem(at: world.home.file(shot), to: kept)
            }
        }

        #expect(try await server.terminate().status == 0)
        #expect(try await logger.terminate().status == 0)
    }

    /// The measured count of the logger panel's "N track · N air · N measured".
    static func measuredRows(_ text: String?) -> Int {
        Int(text?.split(separator: "·").last?.split(separator: " ").first ?? "") ?? -1
    }
}

extension ISO8601DateFormatter {
    fileprivate static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }

    /// `[serve] position = none` in the browser: no map drawn, no coordinate, no distance or
    /// bearing anywhere on the page, the day's figure without its map, and no error.
    @Test func underPositionNoneThePageShowsNoPosition() async throws {
        let (home, server, port) = try await ServeEndToEndTests.serve(
            "[serve]\nlisten = 127.0.0.1:0\nposition = none\n")
        defer { home.remove() }
        let page = try await ChildProcess.run(
            "/usr/bin/python3", [PackagePaths.file("Tests/Clients/device_page_none.py").path, "\(port)"],
            environment: [:], timeout: 600)
        #expect(page.status == 0, "\(page)")
        let seen = (try? JSONSerialization.jsonObject(with: Data(page.stdout.utf8)) as? [String: Any]) ?? [:]
        let text = seen["text"] as? String ?? ""
        let html = seen["html"] as? String ?? ""
        #expect(!text.isEmpty, "\(seen)")
        #expect(seen["map_note"] as? String == "[serve] position = none: no map.", "\(seen)")
        #expect(seen["track_paths"] as? Int == 0, "no line or marker drawn: \(seen)")
        // The seeded day is in Berlin (52.52 N, 13.40 E): not a digit of it anywhere, nor a
        // distance and bearing to a place.
        for needle in ["52.5", "13.4", " km ", "° N", "° E"] {
            #expect(!text.contains(needle) && !html.contains(needle), "the page holds \(needle)")
        }
        let figure = seen["figure"] as? String ?? ""
        #expect(
            figure.contains("positions are not shown here") && !figure.contains("<polyline"), "\(figure.prefix(300))")
        #expect((seen["errors"] as? [String] ?? ["?"]).isEmpty, "\(seen["errors"] ?? "")")
        _ = try await server.terminate()
    }
}
