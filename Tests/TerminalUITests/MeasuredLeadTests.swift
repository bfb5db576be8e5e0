import AirQuality
import Foundation
import Geo
import Readings
import Sensors
import Testing

@testable import Airloc
@testable import TerminalUI

/// The card, the line and the JSON lead with the air measured here when the sensor's
/// fresh reading has an index: a person reads the headline, and the sensor beside them is
/// the better witness than a model's grid cell.
struct MeasuredLeadTests {
    static let console = Console(environment: ["NO_COLOR": "1"], color: .never)

    /// The model says 137 (Unhealthy for Sensitive Groups); the sensor measures 150 µg/m³.
    static func report(pm2_5: Double = 150, nowcast: Int? = nil, flags: [SensorSample.Flag] = [], scale: AQIScale = .us)
        -> AirReport
    {
        let coordinate = Coordinate(uncheckedLatitude: 52.52, longitude: 13.405)
        let model = AirQualityReading(usAQI: 137, concentrations: [.pm2_5: 50.1, .pm10: 60], time: "2026-12-02T10:00")
        var sample = SensorSample(
            model: .sds011, device: "/dev/ttyUSB0", serial: nil, readings: [ParticulateValues(pm2_5: pm2_5, pm10: 180)],
            windowSeconds: 10, warmUpSeconds: 30, correction: .none, humidityLimit: 70)
        sample.flags = flags
        var report = AirReport(
            fix: Fix(coordinate: coordinate, source: .manual), provider: "manual", place: nil,
            sentCoordinate: coordinate, data: AirData(air: .success(model)), accuracy: .full, generatedAt: Date())
        report.scale = scale
        report.measured = .reading(MeasuredReading(sample: sample, nowcastUSAQI: nowcast))
        return report
    }

    @Test func aMeasuredAQIOf225BesideAModel137LeadsWithVeryUnhealthy() throws {
        let card = ReportText(console: Self.console).render(Self.report())
        let lines = card.split(separator: "\n").map(String.init)
        let lead = try #require(lines.first { $0.hasPrefix("Air quality") }, "\(card)")
        #expect(lead.contains("225  Very Unhealthy") && lead.contains("measured here"), "\(card)")
        #expect(card.contains(AQICategory.veryUnhealthy.advice), "\(card)")
        #expect(!card.contains(AQICategory.unhealthyForSensitiveGroups.advice), "the model's advice is not the lead")
        // The model stays beside it, named as such, and the measured line sits above the pollen.
        let model = try #require(
            lines.firstIndex { $0.contains("Model 137 Unhealthy for Sensitive Groups") }, "\(card)")
        let measured = try #require(lines.firstIndex { $0.contains("PM2.5 150 µg/m³ measured here") }, "\(card)")
        let pollen = try #require(lines.firstIndex { $0.hasPrefix("Pollen") }, "\(card)")
        #expect(measured < model && model < pollen, "\(card)")
    }

    @Test func theNowCastLeadsOnceTheLogbookHoldsItsHours() {
        let card = ReportText(console: Self.console).render(Self.report(nowcast: 79))
        #expect(card.contains("Air quality  79  Moderate"), "\(card)")
        #expect(card.contains("NowCast AQI 79"), "\(card)")
    }

    @Test func flagsOnTheReadingShow() {
        let card = ReportText(console: Self.console).render(Self.report(flags: [.warmUpCutShort, .humidity]))
        #expect(card.contains("warm-up cut short") && card.contains("humid air: reads high"), "\(card)")
    }

    @Test func theLineCarriesTheMeasuredValue() {
        let line = ReportLine.render(Self.report())
        #expect(line.contains("225 Very Unhealthy (measured)"), "\(line)")
        #expect(line.contains("PM2.5 150.0 measured") && line.contains("model 137"), "\(line)")
    }

    @Test func theJSONGivesTheMeasuredIndexAndItsCategory() throws {
        let text = JSONDocument.encode(ReportJSON(Self.report()))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let measured = try #require(document["measured"] as? [String: Any], "\(document)")
        #expect(measured["us_aqi"] as? Int == 225 && measured["category"] as? String == "very_unhealthy", "\(measured)")
        #expect(measured["color"] as? String == "#8F3F97" && measured["leads"] as? Bool == true, "\(measured)")
    }

    /// On the European scale the measured PM's own EAQI leads (as Open-Meteo computes the
    /// model's: PM2.5 150 µg/m³ is 104, Extremely poor), the model's EAQI beside it.
    @Test func onTheEuropeanScaleTheMeasuredEAQILeads() {
        var report = Self.report(scale: .eu)
        if case .success(var air) = report.air {
            air.europeanAQI = 70
            report.data.air = .success(air)
        }
        let card = ReportText(console: Self.console).render(report)
        #expect(card.contains("EAQI 104  Extremely poor") && card.contains("measured here"), "\(card)")
        #expect(card.contains("Model EAQI 70 Poor · US AQI 137"), "\(card)")
        #expect(ReportLine.render(report).contains("EAQI 104 Extremely poor (measured)"))
    }
}
