import AirQuality
import Airloc
import Foundation
import Geo
import Readings

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
        if report.accuracy == .reduced { detail.append("approximate (reduced accuracy)") }
        lines.append("  " + detail.joined(separator: " · "))
        if let nearest = report.place, nearest.distance >= 1000 {
            lines.append("  " + console.dim(nearest.relativeDescription))
        }
        let headline = AirHeadline.of(report)
        if let headline, headline.source == .measured {
            lines += measuredLead(headline, report: report)
        } else {
            switch report.air {
            case .success(let reading):
                lines += airLines(reading, report: report)
            case .failure(let error):
                lines.append(
                    "Air quality  " + console.warning("unavailable") + console.dim(" (\(Self.service(error)))"))
                lines += measuredLines(report)
            }
        }
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

    /// Open-Meteo's own European index where it is not airloc's table's: whose it is.
    static func serviceEAQI(_ index: Int) -> String { "Open-Meteo's own EAQI \(index)" }

    private func airLines(_ reading: AirQualityReading, report: AirReport) -> [String] {
        var lines: [String] = []
        let category = reading.category
        if report.scale == .eu, let index = reading.europeanAQI {
            let band = EuropeanAQICategory(index: index)
            let badge = console.paint("EAQI \(index)  \(band.name)", color256: band.terminalColor)
            lines.append("Air quality  \(badge) \(band.emoji)")
            lines.append("  \(band.advice)")
            lines.append("  " + console.dim("US AQI \(reading.usAQI) \(category.name)"))
            if let service = reading.differingServiceEuropeanAQI {
                lines.append("  " + console.dim(Self.serviceEAQI(service)))
            }
        } else {
            let badge = console.paint("\(reading.usAQI)  \(category.name)", color256: category.terminalColor)
            lines.append("Air quality  \(badge) \(category.emoji)")
            lines.append("  \(category.description)")
            if category != .good { lines.append("  \(category.advice)") }
            if report.scale == .eu { lines.append("  " + console.dim("European AQI not available here")) }
        }
        // The sensor beside the person comes before the model's cell values, not under them.
        lines += measuredLines(report)
        let readings = Self.concentrations(reading)
        if !readings.isEmpty { lines.append("  " + readings) }
        lines.append("Pollen       " + PollenReading.summary(reading.pollen))
        return lines
    }

    /// The card's lead when the sensor's fresh reading has an index: its AQI, category,
    /// colour and advice, the reading itself, then the model's index and values as context.
    private func measuredLead(_ headline: AirHeadline, report: AirReport) -> [String] {
        let category = headline.category
        var lines: [String]
        if report.scale == .eu, let index = headline.europeanAQI {
            let band = EuropeanAQICategory(index: index)
            let badge = console.paint("EAQI \(index)  \(band.name)", color256: band.terminalColor)
            lines = ["Air quality  \(badge) \(band.emoji) " + console.dim("measured here"), "  \(band.advice)"]
            lines.append("  " + console.dim("US AQI \(headline.usAQI) \(category.name)"))
        } else {
            let badge = console.paint("\(headline.usAQI)  \(category.name)", color256: category.terminalColor)
            lines = ["Air quality  \(badge) \(category.emoji) " + console.dim("measured here")]
            lines.append("  \(category.description)")
            if category != .good { lines.append("  \(category.advice)") }
        }
        lines += measuredLines(report)
        switch report.air {
        case .success(let reading):
            var model = "  Model " + "\(reading.usAQI) \(reading.category.name)"
            if report.scale == .eu, let index = reading.europeanAQI {
                model = "  Model EAQI \(index) \(EuropeanAQICategory(index: index).name) · US AQI \(reading.usAQI)"
                if let service = reading.differingServiceEuropeanAQI { model += " (\(Self.serviceEAQI(service)))" }
            }
            let readings = Self.concentrations(reading)
            if !readings.isEmpty { model += " · " + readings }
            lines.append(console.dim(model))
            lines.append("Pollen       " + PollenReading.summary(reading.pollen))
        case .failure(let error):
            lines.append("  Model " + console.warning("unavailable") + console.dim(" (\(Self.service(error)))"))
        }
        return lines
    }

    /// "PM2.5 8.8 µg/m³ · PM10 12.0 · …": the model's values.
    private static func concentrations(_ reading: AirQualityReading) -> String {
        Pollutant.allCases.compactMap { pollutant -> String? in
            guard let value = reading.concentrations[pollutant] else { return nil }
            let number = formatConcentration(value)
            return pollutant == .pm2_5
                ? "\(pollutant.symbol) \(number) \(pollutant.unit)" : "\(pollutant.symbol) \(number)"
        }.joined(separator: " · ")
    }

    /// Which service failed; the full reason goes to stderr (diagnostics).
    private static func service(_ error: AirQualityError) -> String {
        if case .web(let web) = error { return web.service }
        return OpenMeteoAirQuality.serviceName
    }

    /// "  PM2.5 12.3 µg/m³ measured here (SDS011, 10 s mean) · model 8.8": the sensor beside
    /// the model's cell value; a failed sensor is said, the report stands.
    /// The particulate sensor's line, then one per `[sensor.NAME]` CO₂ or climate sensor.
    private func measuredLines(_ report: AirReport) -> [String] {
        [measuredLine(report)].compactMap { $0 }
            + report.climateSensors.map { climateSensorLine($0, units: report.units) }
    }

    /// "  CO₂ 845 ppm Moderate: air the room soon · 21.5 °C · 41 % · co2: SCD30, 2 min ago",
    /// or the sensor's failure.
    private func climateSensorLine(_ sensor: MeasuredClimate, units: TemperatureUnit) -> String {
        let values: ClimateValues
        let sample: ClimateSample
        switch sensor.outcome {
        case .failure(let failure):
            return "  \(sensor.name): \(sensor.model.displayName) " + console.warning("unavailable")
                + console.dim(" (\(failure.description))")
        case .success(let read): (sample, values) = (read, read.mean)
        }
        var parts: [String] = []
        if let co2 = values.co2PPM {
            let band = CO2Band(ppm: co2)
            parts.append(
                "CO₂ " + console.bold("\(Int(co2.rounded()))") + " ppm "
                    + console.paint(band.name, color256: band.terminalColor) + ": \(band.advice)")
        }
        if let temperature = values.temperatureC { parts.append(units.format(celsius: temperature)) }
        if let humidity = values.relativeHumidity { parts.append("\(Int(humidity.rounded())) % humidity") }
        if let pressure = values.pressureHPa { parts.append(ClimateQuantity.pressure.text(pressure)) }
        var how = "\(sensor.name): \(sensor.model.displayName)"
        if sensor.fromLogbook { how += ", \(formatAge(sensor.ageSeconds)) ago" }
        var line = "  " + parts.joined(separator: " · ") + " · " + console.dim(how)
        for fault in sample.faults { line += " · " + console.warning(fault) }
        return line
    }

    private func measuredLine(_ report: AirReport) -> String? {
        switch report.measured {
        case nil: return nil
        case .failed(let failure)?:
            return "  Measured here " + console.warning("unavailable") + console.dim(" (\(failure.description))")
        case .reading(let reading)?:
            let sample = reading.sample
            var how = "\(sample.model.displayName), \(Int(sample.windowSeconds)) s mean"
            if reading.fromLogbook { how += ", \(formatAge(reading.ageSeconds)) ago" }
            if sample.correctedPM2_5 != nil { how += ", US EPA-corrected" }
            var line =
                "  PM2.5 " + console.bold(formatConcentration(sample.correctedPM2_5 ?? sample.mean.pm2_5))
                + " µg/m³ measured here (\(how))"
            if case .success(let air) = report.air, let model = air.concentrations[.pm2_5] {
                line += " · model \(formatConcentration(model))"
            }
            if let nowcast = reading.nowcastUSAQI {
                line += " · NowCast AQI \(nowcast)"
            } else if let aqi = sample.usAQI, AirHeadline.of(report)?.source != .measured {
                line += " · US AQI \(aqi) \(AQICategory(aqi: aqi).name)"
            }
            if sample.correctedPM2_5 != nil { line += " · raw \(formatConcentration(sample.mean.pm2_5))" }
            for flag in sample.flags { line += " · " + console.warning(flag.caution) }
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
}

/// "17 m", "1.2 km".
public func formatMetres(_ metres: Double) -> String {
    metres < 1000 ? "\(Int(metres.rounded())) m" : String(format: "%.1f km", metres / 1000)
}
