import AirQuality
import Readings
import Testing

@testable import Sensors

/// The names each outlet gives a CO₂ or climate value, the CO₂ bands' edges, what each
/// model measures, airrohr's families, and a particulate reading corrected with another
/// sensor's humidity.
struct ClimateQuantityTests {
    @Test func theCO2BandsHaveTheirEdgesWhereTheGuidanceDrawsThem() {
        #expect(
            [400.0, 800, 800.4, 1_400, 1_400.5, 5_000].map { CO2Band(ppm: $0) } == [
                .good, .good, .moderate, .moderate, .poor, .poor,
            ])
        #expect(CO2Band.moderate.name == "Moderate" && CO2Band.poor.advice == "air the room now")
    }

    @Test func eachModelMeasuresWhatItsDatasheetSaysAndNothingElse() {
        #expect(ClimateModel.mhZ19.quantities == [.co2] && ClimateModel.senseairS8.quantities == [.co2])
        #expect(ClimateModel.scd30.quantities == [.co2, .temperature, .humidity])
        #expect(ClimateModel.bmp280.quantities == [.temperature, .pressure], "a BMP280 has no humidity")
        #expect(ClimateModel.bme280.quantities == [.temperature, .humidity, .pressure])
        #expect(
            ClimateQuantity.allCases.map(\.deviceClass) == [
                "carbon_dioxide", "temperature", "humidity", "atmospheric_pressure",
            ])
        #expect(ClimateQuantity.pressure.text(1013.25) == "1013.3 hPa" && ClimateQuantity.co2.text(845.4) == "845 ppm")
    }

    @Test func airrohrFamiliesSendWhatTheFirmwareSends() throws {
        let bmp = try #require(ClimateModel.bmp280.airrohr)
        let values = ClimateValues(temperatureC: 20, relativeHumidity: 50, pressureHPa: 1000)
        let sent = bmp.values(values, for: .bmp280)
        #expect(bmp.pin == 3 && sent.map(\.name) == ["temperature", "pressure"] && sent.last?.value == 100_000)
        #expect(ClimateModel.scd30.airrohr?.pin == 17 && ClimateModel.bme280.airrohr?.prefix == "BME280_")
        #expect(ClimateModel.mhZ19.airrohr == nil && ClimateModel.scd4x.airrohr == nil)
    }

    /// A PMS5003's reading corrected with a BME280's 80 %: the EPA formula with that
    /// humidity, the index of the corrected value, the humidity flag raised; its values
    /// as read stay.
    @Test func aBorrowedHumidityCorrectsAndFlags() {
        let sample = SensorSample(
            model: .pms5003, device: "/dev/x", serial: nil,
            readings: [ParticulateValues(pm2_5: 30, pm10: 40, pm2_5CF1: 42)], windowSeconds: 10,
            warmUpSeconds: 30, correction: .epaPMS, humidityLimit: 70)
        #expect(sample.correctedPM2_5 == nil && sample.flags.isEmpty, "no humidity of its own: no correction")
        let lent = sample.humidified(by: 80, correction: .epaPMS, humidityLimit: 70)
        #expect(lent.correctedPM2_5 == ((0.524 * 42 - 0.0862 * 80 + 5.75) * 10).rounded() / 10)
        #expect(lent.flags == [.humidity] && lent.mean == sample.mean)
        #expect(lent.usAQI == EPAIndex.index(.pm2_5, concentration: lent.correctedPM2_5!)?.value)
        let dry = lent.humidified(by: 40, correction: .epaPMS, humidityLimit: 70)
        #expect(dry.flags.isEmpty, "the flag follows the humidity lent")
    }
}
