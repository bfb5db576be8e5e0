import Testing

@testable import AirQuality

/// A sensor's PM on the European scale, as Open-Meteo computes its `european_aqi`: worked
/// by hand from reference/aqi.md's band edges (PM2.5 0/5/15/50/90/140, PM10 0/15/45/120/195/270).
struct EuropeanIndexTests {
    @Test(arguments: [
        (0.0, nil as Double?, 0), (5, nil, 20), (10, nil, 30), (15, nil, 40), (32.5, nil, 50), (140, nil, 100),
        // Above the last edge on the last band's slope: 150 is 100 + 10/50 × 20.
        (150, nil, 104),
        // The larger sub-index wins: PM10 45 is 40 where PM2.5 4 is 16.
        (4, 45, 40),
    ])
    func measuredConcentrationsMapOntoTheEEABands(pm2_5: Double, pm10: Double?, index: Int) {
        #expect(EuropeanAQICategory.index(pm2_5: pm2_5, pm10: pm10) == index)
    }

    /// The model's concentrations on the same table, every covered pollutant: worked by
    /// hand from reference/aqi.md (NO₂ 0/10/25/60/100/150, O₃ 0/60/100/120/160/180, SO₂
    /// 0/20/40/125/190/275). Carbon monoxide is not part of the index.
    @Test func theModelsGasesAreOnTheSameTable() {
        #expect(EuropeanAQICategory.index([.nitrogenDioxide: 17.5]) == 30)
        #expect(EuropeanAQICategory.index([.ozone: 110]) == 50)
        #expect(EuropeanAQICategory.index([.sulphurDioxide: 275]) == 100)
        #expect(EuropeanAQICategory.index([.carbonMonoxide: 5000]) == nil)
        // The station's case: the model's PM2.5 50.2 and PM10 61 are 60 (PM2.5's 60.1),
        // below the sensor's PM2.5 60 and PM10 80 (65): more particles, a higher index.
        let model = EuropeanAQICategory.index([.pm2_5: 50.2, .pm10: 61])
        #expect(model == 60 && EuropeanAQICategory.index(pm2_5: 60, pm10: 80) == 65)
    }

    /// A reading keeps the service's own index beside airloc's and says it only where the
    /// two differ.
    @Test func theServicesOwnIndexIsKeptAndSaidWhereItDiffers() {
        var reading = AirQualityReading(
            usAQI: 150, concentrations: [.pm2_5: 50.2, .pm10: 61], time: "2026-12-04T20:00")
        reading.setEuropeanAQI(service: 80)
        #expect(reading.europeanAQI == 60 && reading.differingServiceEuropeanAQI == 80)
        reading.setEuropeanAQI(service: 60)
        #expect(reading.differingServiceEuropeanAQI == nil)
        // No covered concentration: the service's index stands.
        var bare = AirQualityReading(usAQI: 40, concentrations: [.carbonMonoxide: 200], time: "2026-12-04T20:00")
        bare.setEuropeanAQI(service: 33)
        #expect(bare.europeanAQI == 33 && bare.differingServiceEuropeanAQI == nil)
    }
}
