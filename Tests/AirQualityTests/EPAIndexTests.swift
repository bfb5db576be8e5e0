import Testing

@testable import AirQuality

/// The EPA table, edge by edge, with its truncation rules and unit conversions.
@Suite struct EPAIndexTests {
    /// Every row's low and high edge gives the row's low and high index, for every measure.
    @Test(arguments: EPAIndex.Measure.allCases)
    func everyBreakpointEdge(measure: EPAIndex.Measure) {
        for (cLow, cHigh, iLow, iHigh) in EPAIndex.rows(measure) {
            #expect(EPAIndex.index(measure, concentration: cLow) == .index(iLow), "\(measure) \(cLow)")
            #expect(EPAIndex.index(measure, concentration: cHigh) == .index(iHigh), "\(measure) \(cHigh)")
        }
    }

    /// One step above the top of the table is "beyond the AQI", never an extrapolation.
    @Test(arguments: [
        (EPAIndex.Measure.pm2_5, 325.5), (.pm10, 605), (.ozone1h, 0.605), (.carbonMonoxide, 50.5),
        (.sulphurDioxide, 1005), (.nitrogenDioxide, 2050), (.pm2_5, 10_000),
    ])
    func aboveTheTopIsBeyond(measure: EPAIndex.Measure, concentration: Double) {
        #expect(EPAIndex.index(measure, concentration: concentration) == .beyondIndex)
        #expect(EPAIndex.index(measure, concentration: concentration)?.value == 501)
    }

    /// Truncation first: a value just under the next step stays in the lower row.
    @Test(arguments: [
        (EPAIndex.Measure.pm2_5, 9.09, 50), (.pm2_5, 9.1, 51), (.pm2_5, 35.45, 100), (.pm2_5, 35.5, 101),
        (.pm10, 54.9, 50), (.pm10, 55.0, 51), (.ozone8h, 0.0549, 50), (.ozone8h, 0.055, 51),
        (.carbonMonoxide, 4.49, 50), (.carbonMonoxide, 4.5, 51), (.sulphurDioxide, 35.9, 50), (.sulphurDioxide, 36, 51),
        (.nitrogenDioxide, 53.99, 50), (.nitrogenDioxide, 54, 51), (.pm2_5, 12.0, 56), (.pm2_5, 0.0, 0),
    ])
    func truncationBeforeLookup(measure: EPAIndex.Measure, concentration: Double, expected: Int) {
        #expect(EPAIndex.index(measure, concentration: concentration) == .index(expected))
    }

    @Test func interpolationRoundsToTheNearestInteger() {
        // (100 − 51) / (35.4 − 9.1) × (20.0 − 9.1) + 51 = 71.3 → 71
        #expect(EPAIndex.index(.pm2_5, concentration: 20.0) == .index(71))
        // (150 − 101) / (254 − 155) × (200 − 155) + 101 = 123.27 → 123
        #expect(EPAIndex.index(.pm10, concentration: 200) == .index(123))
    }

    @Test(arguments: [-0.1, Double.nan, Double.infinity, -Double.infinity])
    func invalidInputIsNil(value: Double) {
        #expect(EPAIndex.index(.pm2_5, concentration: value) == nil)
        #expect(EPAIndex.index(.ozone, microgramsPerCubicMetre: value) == nil)
    }

    @Test func oneHourOzoneBelowItsTableLeavesItToTheEightHourTable() {
        #expect(EPAIndex.index(.ozone1h, concentration: 0.100) == .notApplicable)
        // 54 µg/m³ of ozone is 0.0275 ppm: 8-hour table, 25.
        #expect(EPAIndex.index(.ozone, microgramsPerCubicMetre: 54) == .index(25))
    }

    @Test func openMeteoUnitsAreConverted() {
        // NO₂ 100 µg/m³ = 53.2 ppb → 53 → 50; SO₂ 94.32 µg/m³ = 36 ppb → 51.
        #expect(EPAIndex.index(.nitrogenDioxide, microgramsPerCubicMetre: 100) == .index(50))
        #expect(EPAIndex.index(.sulphurDioxide, microgramsPerCubicMetre: 94.32) == .index(51))
        // CO 5,060 µg/m³ = 4.4 ppm → 50; 5,175 µg/m³ = 4.5 ppm → 51.
        #expect(EPAIndex.index(.carbonMonoxide, microgramsPerCubicMetre: 5060) == .index(50))
        #expect(EPAIndex.index(.carbonMonoxide, microgramsPerCubicMetre: 5175) == .index(51))
        // O₃ 107.8 µg/m³ = 0.055 ppm → 51; 0.45 ppm (882 µg/m³) is past the 8-hour table:
        // the 1-hour table gives (500 − 301) / (0.604 − 0.405) × (0.450 − 0.405) + 301 = 346.
        #expect(EPAIndex.index(.ozone, microgramsPerCubicMetre: 107.8) == .index(51))
        #expect(EPAIndex.index(.ozone, microgramsPerCubicMetre: 882) == .index(346))
    }

    @Test func overallIsTheHighestSubIndexAndNamesItsPollutant() throws {
        // The recorded Berlin answer: PM2.5 8.8 → 49 dominates NO₂ 17.7 µg/m³ (9 ppb → 8).
        let berlin = try #require(
            EPAIndex.overall([.pm2_5: 8.8, .pm10: 9.7, .nitrogenDioxide: 17.7, .ozone: 54, .carbonMonoxide: 220]))
        #expect(berlin.aqi == .index(49))
        #expect(berlin.dominant == .pm2_5)
        #expect(EPAIndex.overall([:]) == nil)
        #expect(EPAIndex.overall([.pm2_5: 400])?.aqi == .beyondIndex)
    }

    /// The category of every index boundary (50/51, 100/101, ..., 300/301, beyond 500).
    @Test(arguments: [
        (0, AQICategory.good), (50, .good), (51, .moderate), (100, .moderate), (101, .unhealthyForSensitiveGroups),
        (150, .unhealthyForSensitiveGroups), (151, .unhealthy), (200, .unhealthy), (201, .veryUnhealthy),
        (300, .veryUnhealthy), (301, .hazardous), (500, .hazardous), (501, .hazardous), (9999, .hazardous),
    ])
    func categoryBoundaries(aqi: Int, category: AQICategory) {
        #expect(AQICategory(aqi: aqi) == category)
    }
}
