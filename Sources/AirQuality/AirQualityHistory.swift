import Foundation
import Geo
import Web

/// Past hours of air quality at one place, from Open-Meteo's hourly series: what a field
/// logger asks for to fill the hours it missed while the service could not be reached.
///
/// Contract: one request covers one place and one contiguous span of hours (`start_hour`
/// … `end_hour`, UTC); every hour of the span comes back, with a reading or nil when the
/// service has no value for it (before CAMS' coverage, or not yet computed). A span the
/// service refuses (HTTP 400, e.g. before 2013) throws ``AirQualityError/web(_:)`` with
/// `.rejected`, whose reason says why.
extension OpenMeteoAirQuality {
    /// The variables asked for each hour (no pollen: its history is not kept).
    static let historyVariables: [String] =
        ["us_aqi"] + Pollutant.allCases.map(\.rawValue) + Pollutant.allCases.map(\.subIndexVariable) + ["european_aqi"]

    /// The request for the hours `first` … `last` (UTC hour starts) at `coordinate`.
    public func historyURL(at coordinate: Coordinate, from first: Date, through last: Date) -> URL {
        endpoint.url(
            path: "/v1/air-quality",
            query: [
                ("latitude", Self.format(coordinate.latitude)), ("longitude", Self.format(coordinate.longitude)),
                ("hourly", Self.historyVariables.joined(separator: ",")), ("timezone", "GMT"),
                ("start_hour", Self.hourText(first)), ("end_hour", Self.hourText(last)),
            ])
    }

    /// "2026-11-30T13:00" (UTC), as `start_hour` and the answer's times are written.
    static func hourText(_ date: Date) -> String {
        var hour = UTCTime(date)
        hour.minute = 0
        return hour.text(.minute, zone: false)
    }

    /// The readings of the hours `first` … `last`, keyed by hour start.
    public func history(
        at coordinate: Coordinate, from first: Date, through last: Date
    ) async throws(AirQualityError) -> [Date: AirQualityReading?] {
        let body: Data
        do {
            let url = historyURL(at: coordinate, from: first, through: last)
            let (status, data) = try await client.get(url, service: Self.serviceName)
            try HTTPClient.check(status: status, body: data, service: Self.serviceName)
            body = data
        } catch {
            throw .web(error)
        }
        return try Self.hours(from: body)
    }

    /// Reads an hourly answer into readings by hour (nil where the service has no value).
    public static func hours(from body: Data) throws(AirQualityError) -> [Date: AirQualityReading?] {
        let series: Hourly
        do {
            series = try JSONDecoder().decode(HourlyResponse.self, from: body).hourly
        } catch {
            throw .web(
                .undecodable(service: serviceName, reason: HTTPClient.describe(decodingError: error, body: body)))
        }
        var readings: [Date: AirQualityReading?] = [:]
        for (index, time) in series.time.enumerated() {
            guard let hour = instant(time, utcOffsetSeconds: 0) else { continue }
            func value(_ name: String) -> Double? {
                guard let column = series.values[name], index < column.count, let value = column[index],
                    value.isFinite
                else { return nil }
                return value
            }
            var concentrations: [Pollutant: Double] = [:]
            var subIndices: [Pollutant: Int] = [:]
            for pollutant in Pollutant.allCases {
                concentrations[pollutant] = value(pollutant.rawValue).flatMap {
                    Pollutant.possible.contains($0) ? $0 : nil
                }
                subIndices[pollutant] = OpenMeteoAirQuality.index(value(pollutant.subIndexVariable))
            }
            var reading = AirQualityReading.completing(
                usAQI: OpenMeteoAirQuality.index(value("us_aqi")), concentrations: concentrations,
                subIndices: subIndices, time: time, timezone: "GMT", gridCoordinate: nil)
            reading?.setEuropeanAQI(service: OpenMeteoAirQuality.index(value("european_aqi")))
            reading?.dataTime = hour
            readings[hour] = .some(reading)
        }
        return readings
    }

    struct HourlyResponse: Decodable {
        var hourly: Hourly
    }

    /// `{"time": [...], "<variable>": [...]}`: columns of equal length.
    struct Hourly: Decodable {
        var time: [String]
        var values: [String: [Double?]]

        private typealias Key = VariableName

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            time = try container.decode([String].self, forKey: Key(stringValue: "time"))
            var values: [String: [Double?]] = [:]
            for key in container.allKeys where key.stringValue != "time" {
                values[key.stringValue] = (try? container.decode([Double?].self, forKey: key)) ?? []
            }
            self.values = values
        }
    }
}
