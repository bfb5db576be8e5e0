import Testing

@testable import AirQuality

/// The EPA NowCast, worked by hand from its definition (air-sensors.md).
@Suite struct NowCastTests {
    @Test func aChangingAirWeighsTheLatestHoursMost() {
        // c1 30, c2 20, c3 10: w* = 10/30 < 0.5, so w = 0.5;
        // (30 + 0.5·20 + 0.25·10) / (1 + 0.5 + 0.25) = 24.2857 → 24.2 µg/m³ → AQI 79.
        let hours: [Double?] = [30, 20, 10] + Array(repeating: nil, count: 9)
        #expect(abs((NowCast.concentration(hours) ?? 0) - 24.2857) < 0.001)
        #expect(NowCast.pm2_5AQI(hours) == 79)
    }

    @Test func steadyAirIsItsOwnMean() {
        let hours: [Double?] = Array(repeating: 12.0, count: 12)
        #expect(NowCast.concentration(hours) == 12)
    }

    @Test func itNeedsTwoOfTheThreeLatestHours() {
        #expect(NowCast.concentration([30, nil, nil, 20, 20]) == nil)
        #expect(NowCast.concentration([nil, 30, 20]) != nil)
        #expect(NowCast.concentration([]) == nil)
    }
}
