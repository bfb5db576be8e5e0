import AirQuality
import Airloc
import Foundation
import Geo
import Sensors

/// Renders an ``AirReport`` for a person: the seed app's "Your Location" card as text.
public struct ReportText {
    /// Where it is printed.
    public var console: Console

    /// The card for `console`.
    public init(console: Console) { self.console = console }

    /// The "Your Location" card of `report`.
    public func render(_ report: AirReport) -> String {
        var lines: [String] = []
        let heading = report.fix.source == .manual ? "Chosen location" : "Your Location"
        let placeName = report.place?.place.displayName ?? "unknown place"
        lines.append(console.bold("\(heading) · \(placeName)"))
        var detail = ["\(report.fix.coordinate)"]
        switch report.fix.source {
        case .gps:
            var gps = "GPS \(report.fix.mode?.description ?? "fix")"
            if let accuracy = report.fix.horizontalAccuracy { gps += " ±\(formatMetres(accuracy))" }
            detail.append(gps)
            if let age = report.fix.age(at: report.generatedAt) { detail.append("\(formatAge(age)) ago") }
        case .ip: detail.append("IP location, city level")
        case .manual: detail.append("manual")
        }
        if report.accuracy == "reduced" { detail.append("approximate (reduced accuracy)") }
        lines.append("  " + detail.joined(separator: " · "))
        if let nearest = report.place, nearest.distance >= 1000 {
            lines.append("  " + console.dim(nearest.relativeDescription))
        }
        switch report.air {
        case .success(let reading):
            lines += airLines(reading, report: report)
        case .failure(let error):
            // The full reason goes to stderr (diagnostics); the card only says which part failed.
            let service: String
            if case .web(let web) = error { service = web.service } else { service = OpenMeteoAirQuality.serviceName }
            lines.append("Air quality  " + console.warning("unavailable") + console.dim(" (\(service))"))
        }
        if let measured = measuredLine(report) { lines.append(measured) }
        if let climate = climateLine(report) { lines.append(climate) }
        if case .success(let reading) = report.air {
            var footer = "Data: \(OpenMeteoAirQuality.attribution)"
            if let override = report.airServiceOverride { footer += " via \(override)" }
            footer += " · \(reading.time) \(reading.timezone)"
            if let age = report.data.airCachedAge { footer += " · cached \(formatAge(age)) ago" }
            footer += " · Places: GeoNames"
            lines.append("  " + console.dim(footer))
        }
        if let width = console.width { lines = lines.flatMap { CardWrap.wrap($0, width: width) } }
        return lines.joined(separator: "\n") + "\n"
    }

    private func airLines(_ reading: AirQualityReading, report: AirReport) -> [String] {
        var lines: [String] = []
        let category = reading.category
        if report.scale == .eu, let index = reading.europeanAQI {
            let band = EuropeanAQICategory(index: index)
            let badge = console.paint("EAQI \(index)  \(band.name)", color256: band.terminalColor)
            lines.append("Air quality  \(badge) \(band.emoji)")
            lines.append("  \(band.advice)")
            lines.append("  " + console.dim("US AQI \(reading.usAQI) \(category.name)"))
        } else {
            let badge = console.paint("\(reading.usAQI)  \(category.name)", color256: category.terminalColor)
            lines.append("Air quality  \(badge) \(category.emoji)")
            lines.append("  \(category.description)")
            if category != .good { lines.append("  \(category.advice)") }
            if report.scale == .eu { lines.append("  " + console.dim("European AQI not available here")) }
        }
        let readings = Pollutant.allCases.compactMap { pollutant -> String? in
            guard let value = reading.concentrations[pollutant] else { return nil }
            let number = formatConcentration(value)
            return pollutant == .pm2_5
                ? "\(pollutant.symbol) \(number) \(pollutant.unit)" : "\(pollutant.symbol) \(number)"
        }
        if !readings.isEmpty { lines.append("  " + readings.joined(separator: " · ")) }
        lines.append("Pollen       " + Self.pollenSummary(reading.pollen))
        return lines
    }

    /// "  PM2.5 12.3 µg/m³ measured here (SDS011, 10 s mean) · model 8.8": the sensor beside
    /// the model's cell value; a failed sensor is said, the report stands.
    private func measuredLine(_ report: AirReport) -> String? {
        switch report.measured {
        case nil: return nil
        case .failed(let failure)?:
            return "  Measured here " + console.warning("unavailable") + console.dim(" (\(failure.description))")
        case .reading(let reading)?:
            let sample = reading.sample
            var how = "\(sample.model.displayName), \(Int(sample.windowSeconds)) s mean"
            if reading.fromLogbook { how += ", \(formatAge(reading.ageSeconds)) ago" }
            var line =
                "  PM2.5 " + console.bold(formatConcentration(sample.mean.pm2_5)) + " µg/m³ measured here (\(how))"
            if case .success(let air) = report.air, let model = air.concentrations[.pm2_5] {
                line += " · model \(formatConcentration(model))"
            }
            if let nowcast = reading.nowcastUSAQI { line += " · NowCast AQI \(nowcast)" }
            if sample.flags.contains(.humidity) { line += console.dim(" · humid air: reads high") }
            return line
        }
    }

    /// "Climate      +1.8 °C vs 1991-2020 · ▅▆▇▆▅▇█ · 7 days: 6.5 °C, normal 4.7 °C" —
    /// under 80 columns; the days themselves are in the JSON.
    private func climateLine(_ report: AirReport) -> String? {
        switch report.data.climate {
        case .notRequested: return nil
        case .ok(let trend):
            let units = report.units
            let days = trend.days.count == 1 ? "1 day" : "\(trend.days.count) days"
            return "Climate      \(console.bold(units.formatDifference(celsius: trend.difference))) vs "
                + "\(Climatology.period) · \(trend.sparkline) · "
                + console.dim(
                    "\(days): \(units.format(celsius: trend.recentMean)), normal \(units.format(celsius: trend.baselineMean))"
                )
        case .unavailable(let reason):
            return "Climate      not available here" + console.dim(" (\(reason))")
        case .failed(let error):
            return "Climate      " + console.warning("unavailable") + console.dim(" (\(error.description))")
        }
    }

    /// "Tree high (Birch 120) · Grass low · Weed none", or "not available here".
    public static func pollenSummary(_ pollen: PollenReading) -> String {
        guard pollen.isAvailable else { return "not available here (Europe only, in season)" }
        return PollenGroup.allCases.compactMap { group -> String? in
            guard let top = pollen.level(of: group) else { return nil }
            var text = "\(group.name) \(top.level.name)"
            if top.level > .none && group == .tree { text += " (\(top.species.name) \(Int(top.value.rounded())))" }
            return text
        }.joined(separator: " · ")
    }
}

/// "17 m", "1.2 km".
public func formatMetres(_ metres: Double) -> String {
    metres < 1000 ? "\(Int(metres.rounded())) m" : String(format: "%.1f km", metres / 1000)
}

/// Open-Meteo's own precision: one decimal, none for values ≥ 100 (CO 220).
public func formatConcentration(_ value: Double) -> String {
    value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
}
