import Foundation
import TestSupport
import Testing

@testable import Serve

/// One freshness rule on every outlet of `serve`: the sensor's latest reading leads while
/// it is younger than two intervals (at least two minutes); past that (a sensor unplugged,
/// a logger stopped) the card falls back to the model, `/metrics` leaves the measured
/// values out and keeps their age, and `/data.json` has no reading.
@Suite struct MeasuredFreshnessTests {
    /// The served device's reading is a minute old when the rows are written; `interval`
    /// is 60 s, so its window is 120 s.
    @Test func aFreshReadingLeadsEverywhere() async throws {
        let device = try ServedDevice()
        defer { device.remove() }
        let routes = try device.routes(later: 30)
        let measured = try await device.json("/api/now", routes)["measured"] as? [String: Any] ?? [:]
        #expect(measured["leads"] as? Bool == true && measured["headline_us_aqi"] as? Int == 113, "\(measured)")
        let metrics = try await device.get("/metrics", routes).text
        for series in [
            "airloc_aqi{scale=\"us\",source=\"measured\"} 113", "airloc_aqi{scale=\"us\",source=\"model\"} 64",
            "airloc_headline_aqi{scale=\"us\"} 113", "airloc_pm2_5{source=\"measured\"} 40.2",
        ] {
            #expect(metrics.contains(series), "\(series) in\n\(metrics)")
        }
        #expect(try await device.get("/data.json", routes).text.contains("SDS_P2"))
    }

    @Test func aReadingPastItsWindowLeadsNothingAndItsValuesAreLeftOut() async throws {
        let device = try ServedDevice()
        defer { device.remove() }
        let routes = try device.routes(later: 61)
        let now = try await device.json("/api/now", routes)
        let measured = now["measured"] as? [String: Any] ?? [:]
        #expect(measured["leads"] as? Bool == false, "121 s old with a 120 s window: \(measured)")
        #expect(measured["age_s"] as? Double == 121, "its age is still said: \(measured)")
        #expect(measured["headline_us_aqi"] == nil || measured["headline_us_aqi"] is NSNull, "\(measured)")
        let metrics = try await device.get("/metrics", routes).text
        #expect(metrics.contains("airloc_headline_aqi{scale=\"us\"} 64"), "the model leads: \(metrics)")
        #expect(metrics.contains("airloc_aqi{scale=\"us\",source=\"model\"} 64"))
        #expect(!metrics.contains("source=\"measured\"}"), "no measured value series: \(metrics)")
        #expect(metrics.contains("airloc_sensor_reading_age_seconds 121"), "its age series stays: \(metrics)")
        let data = try await device.get("/data.json", routes).text
        #expect(!data.contains("SDS_P"), "airrohr's answer without a reading: \(data)")
        let page = try await device.get("/", routes).text
        #expect(!page.contains(" measured here<"), "the card does not lead with it: \(page)")
        #expect(page.contains("unavailable since "), "the page says the sensor is unavailable, and since when")
    }

    /// `/api/now` carried `flags: ["humidity"]` and `now` said "humid air: reads high"; the
    /// page's card said nothing of it.
    @Test func aReadingToBeReadWithCareSaysSoOnTheCard() async throws {
        let device = try ServedDevice()
        defer { device.remove() }
        var record = ServedDevice.reading(55.0, model: .sds011, at: device.now.addingTimeInterval(-10), segment: nil)
        record.flags = ["humidity", "warm-up-cut-short"]
        try device.logbook?.append(record)
        let card = try await device.get("/card", try device.routes(later: 0)).text
        #expect(card.contains("humid air: reads high") && card.contains("warm-up cut short: may be off"), "\(card)")
    }
}
