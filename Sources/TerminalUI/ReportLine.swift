import AirQuality
import Airloc
import Foundation
import Geo

/// `--format line`: one compact line for status bars and small displays,
/// "Berlin 41 Good · PM2.5 8.8 · Birch high · +1.8°C".
///
/// Contract: the place (or the coordinates), the index and its category on the chosen
/// scale, then only what is there — the dominant pollutant, the strongest pollen when
/// it is moderate or more, the climate difference — each part separated by " · ".
/// No colour, no emoji: status bars render neither reliably.
public enum ReportLine {
    /// One line for a status bar: "Berlin 41 Good 🙂 PM2.5 8.8".
    public static func render(_ report: AirReport) -> String {
        let name = report.place?.place.name ?? String(describing: report.fix.coordinate)
        switch report.air {
        case .success(let reading):
            var parts: [String]
            if report.scale == .eu, let index = reading.europeanAQI {
                parts = ["\(name) EAQI \(index) \(EuropeanAQICategory(index: index).name)"]
            } else {
                parts = ["\(name) \(reading.usAQI) \(reading.category.name)"]
            }
            if let dominant = reading.dominantPollutant, let value = reading.concentrations[dominant] {
                parts.append("\(dominant.name) \(String(format: "%.1f", value))")
            }
            if let pollen = reading.pollen.dominant, pollen.level >= .moderate {
                parts.append("\(pollen.species.name) \(pollen.level.name)")
            }
            if let trend = report.data.climate.trend {
                parts.append(
                    report.units.formatDifference(celsius: trend.difference).replacingOccurrences(of: " ", with: ""))
            }
            if let age = report.data.airCachedAge, report.data.airIsStale {
                parts.append("cached \(formatAge(age)) ago")
            }
            return parts.joined(separator: " · ")
        case .failure(let error):
            return "\(name) air quality unavailable (\(error.isRetryable ? "try later" : "service error"))"
        }
    }
}
