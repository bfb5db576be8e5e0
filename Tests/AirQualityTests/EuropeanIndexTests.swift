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
}
