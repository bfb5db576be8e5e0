import AirQuality
import Airloc
import Foundation
import Geo

/// `--format line`: one compact line for status bars and small displays,
/// "Berlin 41 Good · PM2.5 8.8 · Birch high · +1.8°C".
///
/// Contract: the place (or the coordinates), the index and its category on the chosen
/// scale — the measured one, marked "(measured)", when ``AirHeadline`` leads with it —
/// then only what is there — the dominant pollutant, the measured PM2.5, the strongest pollen when
/// it is moderate or more, the climate difference — each part separated by " · ".
/// No colour, no emoji: status bars render neither reliably.
public enum ReportLine {
    /// One line for a status bar: "Berlin 41 Good 🙂 PM2.5 8.8".
    public static func render(_ report: AirReport) -> String {
        let name = report.place?.place.name ?? String(describing: report.fix.coordinate)
        var measured: String?
        if case .reading(let reading)? = report.measured {
            let sample = reading.sample
            measured = "PM2.5 \(String(format: "%.1f", sample.correctedPM2_5 ?? sample.mean.pm2_5)) measured"
        }
        if let headline = AirHeadline.of(report), headline.source == .measured {
            var parts = ["\(name) \(headline.usAQI) \(headline.category.name) (measured)"]
            if report.scale == .eu, let index = headline.europeanAQI {
                parts = ["\(name) EAQI \(index) \(EuropeanAQICategory(index: index).name) (measured)"]
            }
            parts += [measured].compactMap { $0 }
            switch report.air {
            case .success(let reading): parts.append("model \(reading.usAQI)")
            case .failure: parts.append("model unavailable")
            }
            return parts.joined(separator: " · ")
        }
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
            if let measured { parts.append(measured) }
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
