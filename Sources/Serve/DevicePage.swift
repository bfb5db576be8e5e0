import AirQuality
import Airloc
import Foundation
import Geo
import Logbook
import Platform
import Web

/// `GET /`: the device's page — the "Your Location" card, rendered here so that it reads
/// with JavaScript off, the day's map and figure, and the logger's state; `page.js` makes
/// it live (Server-Sent Events) and draws the map with the device's own copy of Leaflet.
///
/// Contract: every text that came from a service, a sensor or a file is escaped
/// (``XMLText/escape(_:keepingLineBreaks:)``); no inline script or style (the page's
/// Content-Security-Policy forbids them): colours are classes of `page.css`; a coordinate
/// is shown as `[serve] position` allows. Without a logbook it says that `airloc log run`
/// makes one.
struct DevicePage {
    let source: DeviceSource
    let now: Date
    let report: AirReport?

    init(source: DeviceSource, now: Date, report: AirReport?) {
        self.source = source
        self.now = now
        self.report = report
    }

    var html: String {
        var body = ""
        if let report { body += card(report) } else { body += empty }
        body += """
            <section class="panel" id="map-panel"><h2>The day's track</h2>\
            <div id="map" data-tiles="\(escape(source.settings.serve.tiles ?? ""))" \
            data-position="\(source.settings.serve.position.rawValue)"></div>\
            <p class="note" id="map-note">The map needs JavaScript.</p></section>
            \(logger)
            <section class="panel" id="day"><h2>The day</h2><picture>\
            <source media="(max-width: 599px)" srcset="/day.svg?width=340">\
            <source media="(max-width: 899px)" srcset="/day.svg?width=600">\
            <img id="chart" src="/day.svg" \
            alt="The last 24 hours: the air quality index, model and measured, and the track"></picture></section>
            """
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · airloc</title>
            <link rel="icon" href="data:,"><link rel="stylesheet" href="/leaflet/leaflet.css"><link rel="stylesheet" href="/page.css">
            </head><body>
            <main>
            \(body)
            <footer>airloc \(AirlocVersion.string) · <a href="/api/now">/api/now</a> · <a href="/metrics">/metrics</a> · \
            <a href="/data.json">/data.json</a> · <span id="live">not live</span></footer>
            <p id="announce" class="sr" aria-live="polite"></p>
            </main>
            <script src="/leaflet/leaflet.js"></script><script src="/page.js"></script>
            </body></html>

            """
    }

    private var title: String { report?.place?.place.displayName ?? "Your Location" }

    /// `GET /card`: the card alone, as the page renders it; `page.js` puts it in place of
    /// the page's at every new row, so the headline, its colour, the advice and every line
    /// follow the air without a reload.
    var cardHTML: String { report.map(card) ?? empty }

    /// An age the page keeps ticking: "just now" under 5 s, then as ``formatAge(_:)`` says
    /// it ("12 s ago", "3 min ago"), with the moment itself in the tooltip and in
    /// `data-at`, from which `page.js` counts on (against the card's `data-now`, the
    /// device's clock, so a browser's wrong clock does not show).
    private func ago(_ seconds: Double) -> String {
        let at = UTCTime.iso8601Seconds(now.addingTimeInterval(-max(0, seconds)))
        let text = seconds < 5 ? "just now" : "\(formatAge(seconds)) ago"
        return "<time data-at=\"\(at)\" title=\"\(at)\">\(text)</time>"
    }

    private var empty: String {
        """
        <section class="card cat-unknown" id="card"><h1>Your Location</h1>\
        <p id="advice">No logbook yet at \(escape(source.settings.logDatabase.path)): \
        <code>airloc log run</code> makes one (or start airloc-log.service).</p></section>
        """
    }

    private func card(_ report: AirReport) -> String {
        let headline = AirHeadline.of(report)
        let category = headline?.category
        let measuredLeads = headline?.source == .measured
        var lines: [String] = []
        let place = report.place?.place.displayName ?? "unknown place"
        var where_ = ""
        if let shown = source.position.shown(report.fix.coordinate) {
            let decimals = source.position.decimals
            where_ = escape(String(format: "%.\(decimals)f, %.\(decimals)f", shown.latitude, shown.longitude))
        }
        if let age = report.fix.age(at: now) { where_ += (where_.isEmpty ? "" : " · ") + "fix \(ago(age))" }
        lines.append("<p class=\"where\" id=\"where\">\(where_)</p>")
        if let headline, let category {
            lines.append(
                "<p class=\"aqi\"><span id=\"aqi\">\(headline.usAQI)</span> <span id=\"category\">\(escape(category.name))</span> "
                    + "<span aria-hidden=\"true\">\(category.emoji)</span>"
                    + "<span class=\"basis\">\(measuredLeads ? " measured here" : " model")</span></p>"
            )
            lines.append("<p id=\"advice\">\(escape(category.advice))</p>")
        } else {
            lines.append("<p class=\"aqi\"><span id=\"aqi\">–</span> <span id=\"category\">no air reading</span></p>")
            if case .failure(let error) = report.air {
                lines.append("<p id=\"advice\">\(escape(error.description))</p>")
            }
        }
        // (id, label, HTML: its texts escaped where they are put in)
        var rows: [(String, String, String)] = []
        if case .reading(let reading)? = report.measured {
            let sample = reading.sample
            var text =
                "PM2.5 \(formatConcentration(sample.correctedPM2_5 ?? sample.mean.pm2_5)) µg/m³ · PM10 "
                + "\(formatConcentration(sample.mean.pm10)) µg/m³ (\(sample.model.displayName)"
            if case .success(let air) = report.air, let model = air.concentrations[.pm2_5] {
                text += ", model PM2.5 \(formatConcentration(model))"
            }
            text += ")"
            // What `now` says of a reading to be read with care (humid air, a warm-up cut
            // short), in words on the card too.
            for flag in sample.flags { text += " · " + flag.caution }
            if !reading.isFresh {
                // Past its window (a sensor unplugged, a logger stopped): said as such, with
                // what it last read, never as the air now.
                let since = UTCTime.iso8601Seconds(now.addingTimeInterval(-reading.ageSeconds))
                text = "unavailable since \(since) (last: \(text))"
            }
            rows.append(("measured", "Measured", escape(text)))
            rows.append(("measured-age", "Reading", ago(reading.ageSeconds)))
        }
        if case .success(let air) = report.air {
            let model = air.concentrations.sorted { $0.key.rawValue < $1.key.rawValue }
                .map { "\($0.key.symbol) \(formatConcentration($0.value))" }.joined(separator: " · ")
            rows.append(("pollutants", measuredLeads ? "Model \(air.usAQI)" : "Pollutants", escape(model + " µg/m³")))
            rows.append(("pollen", "Pollen", escape(PollenReading.summary(air.pollen))))
        }
        if case .reading(let reading)? = report.measured,
            let temperature = reading.sample.mean.temperatureC
        {
            var text = report.units.format(celsius: temperature)
            if let humidity = reading.sample.mean.relativeHumidity {
                text += " · \(Int(humidity.rounded())) % humidity"
            }
            rows.append(("climate", "Climate", escape(text)))
        }
        // Each [sensor.NAME] by name (`sensor-NAME`: the page's script updates it live).
        for sensor in report.climateSensors {
            guard let summary = sensor.summary(units: report.units) else { continue }
            rows.append(
                (
                    "sensor-\(sensor.name)", sensor.name,
                    escape(summary + " (\(sensor.model.displayName), ") + ago(sensor.ageSeconds) + ")"
                ))
        }
        lines.append(
            "<dl>" + rows.map { "<dt>\(escape($0.1))</dt><dd id=\"\(escape($0.0))\">\($0.2)</dd>" }.joined() + "</dl>")
        if case .success(let reading) = report.air {
            lines.append(
                "<p class=\"note\">Model: \(escape(OpenMeteoAirQuality.attribution)) · \(escape(reading.time)) "
                    + "\(escape(reading.timezone)) · Places: GeoNames</p>")
        }
        let heading = report.fix.source == .manual ? "Chosen location" : "Your Location"
        return "<section class=\"card cat-\(category?.rawValue ?? "unknown")\" id=\"card\" "
            + "data-units=\"\(report.units.rawValue)\" data-now=\"\(UTCTime.iso8601Seconds(now))\"><h1>\(heading) · "
            + "<span id=\"place\">\(escape(place))</span></h1>" + lines.joined() + "</section>"
    }

    private var logger: String {
        guard let status = source.status(at: now) else { return "" }
        var rows = [
            ("rows", "Rows", "\(status.trackRows) track · \(status.airRows) air · \(status.sensorRows) measured"),
            ("last-error", "Last error", status.lastError.map { "\($0) (\(status.lastErrorAt ?? ""))" } ?? "none"),
        ]
        if source.settings.mqtt.broker.url != nil { rows.append(("unsent", "MQTT unsent", "\(status.unsent)")) }
        for upload in status.uploads {
            rows.append(("upload-\(upload.name)", "Upload \(upload.name)", "\(upload.status.backlog) waiting"))
        }
        return "<section class=\"panel\" id=\"logger\"><h2>The logger</h2><dl>"
            + rows.map { "<dt>\(escape($0.1))</dt><dd id=\"\(escape($0.0))\">\(escape($0.2))</dd>" }.joined()
            + "</dl></section>"
    }

    private func escape(_ text: String) -> String { XMLText.escape(text, keepingLineBreaks: false) }
}
