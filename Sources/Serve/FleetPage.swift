import AirQuality
import FleetStore
import Foundation
import Geo
import Platform
import Settings
import Web

/// `GET /` with `[serve] source = collector`: the fleet's page — a map of every device's
/// last position coloured by its air, the list of devices with their age (stale past
/// `[serve] stale-after`), and a day picker that draws the chosen device's track;
/// `fleet.js` keeps it live. With a share link, the page of that one device and window.
///
/// Contract: as the device's page, it reads without JavaScript (the list is rendered here),
/// escapes every text that came from a device, and has no inline script or style.
struct FleetPage {
    let serve: ServeSettings
    let now: Date
    var devices: [LastPosition] = []
    var share: ShareLink?

    init(serve: ServeSettings, devices: [LastPosition], now: Date) {
        (self.serve, self.devices, self.now) = (serve, devices, now)
    }

    init(serve: ServeSettings, share: ShareLink, now: Date) {
        (self.serve, self.share, self.now) = (serve, share, now)
    }

    var html: String {
        var data = """
            data-tiles="\(escape(serve.tiles ?? ""))" data-position="\(serve.position.rawValue)" \
            data-stale="\(Int(serve.staleAfter))"
            """
        let body: String
        if let share {
            let (since, until) = (UTCTime.iso8601Seconds(share.since), UTCTime.iso8601Seconds(share.until))
            data += " data-device=\"\(escape(share.deviceID))\" data-since=\"\(since)\" data-until=\"\(until)\""
            body = """
                <section class="panel"><h1>\(escape(share.deviceID))</h1>\
                <p class="note">Shared: its track from \(since) to \(until) (UTC)\
                \(share.expires.map { ", until this link expires at \(UTCTime.iso8601Seconds($0))" } ?? "").</p>\
                <p class="note" id="track-note"></p></section>
                """
        } else {
            let day = String(UTCTime.iso8601Seconds(now).prefix(10))
            body = """
                <section class="panel"><h1>The fleet</h1>\
                <p class="note">\(devices.count) device\(devices.count == 1 ? "" : "s"); choose one to draw its day.</p>\
                <p><label>Day (UTC) <input type="date" id="day" value="\(day)"></label></p>\
                <p class="note" id="track-note"></p>\
                <ul class="devices" id="devices">\(devices.map(item).joined())</ul></section>
                """
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(share?.deviceID ?? "The fleet")) · airloc</title>
            <link rel="icon" href="data:,"><link rel="stylesheet" href="/leaflet/leaflet.css"><link rel="stylesheet" href="/page.css">
            </head><body>
            <main>
            \(body)
            <section class="panel" id="map-panel"><div id="map" \(data)></div>\
            <p class="note" id="map-note">The map needs JavaScript.</p></section>
            <footer>airloc \(AirlocVersion.string)\(share == nil ? " · <a href=\"/api/last\">/api/last</a> · <a href=\"/metrics\">/metrics</a>" : "") · \
            <span id="live">not live</span></footer>
            </main>
            <script src="/leaflet/leaflet.js"></script><script src="/fleet.js"></script>
            </body></html>

            """
    }

    /// A device's line: its id (a button that draws its day), its AQI, its age.
    private func item(_ last: LastPosition) -> String {
        let shown = FleetLast.shown(last, now: now)
        let age = shown.newest.map { max(0, now.timeIntervalSince($0)) }
        let stale = age.map { $0 > serve.staleAfter } ?? true
        let category = shown.aqi.map { AQICategory(aqi: $0) }
        return """
            <li data-device="\(escape(last.deviceID))"><button type="button" class="device">\(escape(last.deviceID))</button> \
            <span class="badge cat-\(category?.rawValue ?? "unknown")"><span class="aqi">\(shown.aqi.map(String.init) ?? "–")</span></span> \
            <span class="category">\(escape(category?.name ?? ""))</span> \
            <span class="age">\(age.map { Self.age($0) + " ago" } ?? "no row yet")</span> \
            <span class="stale">\(stale ? "stale" : "")</span></li>
            """
    }

    /// "12 s", "5 min", "3 h", "2 d".
    static func age(_ seconds: Double) -> String {
        switch seconds {
        case ..<60: return "\(Int(seconds)) s"
        case ..<3600: return "\(Int(seconds / 60)) min"
        case ..<86_400: return "\(Int(seconds / 3600)) h"
        default: return "\(Int(seconds / 86_400)) d"
        }
    }

    private func escape(_ text: String) -> String { XMLText.escape(text, keepingLineBreaks: false) }
}
