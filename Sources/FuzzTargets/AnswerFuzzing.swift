import AirQuality
import Foundation
import Gazetteer
import Geo
import Location
import Uploads
import Web

/// What services answer, as airloc reads it: Open-Meteo's air quality (now and by hour)
/// and archive, its geocoding, Zippopotam.us, the IP geolocation services, and the upload
/// services' HTTP answers (status, body, `Retry-After`).
///
/// What must hold: a reading's numbers are numbers, an index is in its range, a place is
/// on Earth and its text is plain (no control byte reaches a terminal or a document).
enum AnswerFuzzing {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    static let targets = [
        FuzzTarget("air-answer", "Open-Meteo air quality, hourly history and archive answers") { bytes in
            let body = Data(bytes)
            if let reading = try? OpenMeteoAirQuality.reading(from: body) { check(reading) }
            if let hours = try? OpenMeteoAirQuality.hours(from: body) {
                for case let reading? in hours.values { check(reading) }
            }
            if let series = try? OpenMeteoArchive.series(from: body) {
                precondition(series.allSatisfy { FuzzInput.finite($0.meanCelsius) }, "a mean that is no number")
            }
        },
        FuzzTarget("place-answer", "Open-Meteo geocoding, Zippopotam.us and IP geolocation answers") { bytes in
            let body = Data(bytes)
            for place in (try? OpenMeteoGeocoding.places(in: body)) ?? [] {
                precondition(plain(place.name) && plain(place.country) && plain(place.timezone), "text not plain")
            }
            if let places = try? Zippopotam.places(in: body, countryCode: "US", code: "90210") {
                precondition(places.allSatisfy { plain($0.placeName) && plain($0.code) }, "postal text not plain")
            }
            for service in IPService.allCases {
                guard let answer = try? service.parse(body) else { continue }
                precondition(abs(answer.coordinate.latitude) <= 90 && abs(answer.coordinate.longitude) <= 180)
            }
        },
        FuzzTarget("upload-answer", "an upload service's HTTP answer: status, Retry-After and body") { bytes in
            guard bytes.count >= 2 else { return }
            let status = Int(bytes[0]) * 4 + Int(bytes[1] % 4)
            let (retryAfter, body) = FuzzInput.head(Array(bytes.dropFirst(2)))
            for type in ["traccar", "owntracks", "sensor.community", "opensensemap"] {
                let verdict = UploadVerdict.judge(
                    HTTPAnswer(status: status, body: Data(body), retryAfter: retryAfter), type: type, now: now)
                if case .retry(let after?, _) = verdict { precondition(after >= .zero, "a pause before now") }
            }
        },
    ]

    static func check(_ reading: AirQualityReading) {
        precondition(reading.usAQI >= 0, "a US AQI of \(reading.usAQI)")
        for value in reading.concentrations.values { precondition(value.isFinite, "a pollutant that is no number") }
    }

    /// No control character: what `TerminalText.plain` promises of service text.
    static func plain(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
