/// The US EPA Air Quality Index computed from concentrations (revision effective
/// 2024-05-06): for readings without Open-Meteo's sub-indices, and for library users
/// with their own sensors (a PM2.5 sensor on a Raspberry Pi).
///
/// Contract: pure functions. A concentration is first truncated the EPA's way (PM2.5 to
/// 0.1 µg/m³, PM10 to 1 µg/m³, O₃ to 0.001 ppm, CO to 0.1 ppm, SO₂ and NO₂ to 1 ppb),
/// then placed in its breakpoint row and interpolated linearly, rounded to the nearest
/// integer. Above the table's top it is ``Outcome/beyondIndex`` ("> 500"), never an
/// extrapolated number. Negative, NaN or infinite input gives nil. This does not
/// "correct" Open-Meteo's own `us_aqi` values, which average over different windows;
/// callers say which one they show.
public enum EPAIndex {
    /// What the table is looked up with: a pollutant and its averaging period, in the
    /// table's unit.
    public enum Measure: String, Sendable, CaseIterable {
        /// PM2.5, 24-hour mean, µg/m³.
        case pm2_5
        /// PM10, 24-hour mean, µg/m³.
        case pm10
        /// Ozone, 8-hour mean, ppm (AQI 0-300; above 0.200 ppm only the 1-hour table applies).
        case ozone8h
        /// Ozone, 1-hour mean, ppm (AQI 101-500).
        case ozone1h
        /// Carbon monoxide, 8-hour mean, ppm.
        case carbonMonoxide
        /// Sulphur dioxide, ppb: 1-hour mean up to 304 ppb, 24-hour mean above.
        case sulphurDioxide
        /// Nitrogen dioxide, 1-hour mean, ppb.
        case nitrogenDioxide
    }

    /// A sub-index.
    public enum Outcome: Sendable, Hashable {
        case index(Int)
        /// Above the table's highest breakpoint: report "> 500".
        case beyondIndex
        /// Below the lowest breakpoint of a table that does not start at zero (1-hour
        /// ozone under 0.125 ppm): the 8-hour table decides.
        case notApplicable

        /// The number to compare and show; 501 stands for "beyond".
        public var value: Int? {
            switch self {
            case .index(let value): return value
            case .beyondIndex: return 501
            case .notApplicable: return nil
            }
        }
    }

    /// Breakpoint rows: (C_lo, C_hi, I_lo, I_hi), in the table's unit.
    static func rows(_ measure: Measure) -> [(Double, Double, Int, Int)] {
        switch measure {
        case .pm2_5:
            return [
                (0.0, 9.0, 0, 50), (9.1, 35.4, 51, 100), (35.5, 55.4, 101, 150), (55.5, 125.4, 151, 200),
                (125.5, 225.4, 201, 300), (225.5, 325.4, 301, 500),
            ]
        case .pm10:
            return [
                (0, 54, 0, 50), (55, 154, 51, 100), (155, 254, 101, 150), (255, 354, 151, 200), (355, 424, 201, 300),
                (425, 604, 301, 500),
            ]
        case .ozone8h:
            return [
                (0.000, 0.054, 0, 50), (0.055, 0.070, 51, 100), (0.071, 0.085, 101, 150), (0.086, 0.105, 151, 200),
                (0.106, 0.200, 201, 300),
            ]
        case .ozone1h:
            return [
                (0.125, 0.164, 101, 150), (0.165, 0.204, 151, 200), (0.205, 0.404, 201, 300), (0.405, 0.604, 301, 500),
            ]
        case .carbonMonoxide:
            return [
                (0.0, 4.4, 0, 50), (4.5, 9.4, 51, 100), (9.5, 12.4, 101, 150), (12.5, 15.4, 151, 200),
                (15.5, 30.4, 201, 300), (30.5, 50.4, 301, 500),
            ]
        case .sulphurDioxide:
            return [
                (0, 35, 0, 50), (36, 75, 51, 100), (76, 185, 101, 150), (186, 304, 151, 200), (305, 604, 201, 300),
                (605, 1004, 301, 500),
            ]
        case .nitrogenDioxide:
            return [
                (0, 53, 0, 50), (54, 100, 51, 100), (101, 360, 101, 150), (361, 649, 151, 200), (650, 1249, 201, 300),
                (1250, 2049, 301, 500),
            ]
        }
    }

    /// Decimal places the EPA truncates each measure to.
    static func decimals(_ measure: Measure) -> Int {
        switch measure {
        case .pm2_5, .carbonMonoxide: return 1
        case .pm10, .sulphurDioxide, .nitrogenDioxide: return 0
        case .ozone8h, .ozone1h: return 3
        }
    }

    /// Truncates toward zero to the measure's precision. A relative nudge of 1e-9 keeps a
    /// value that is exactly on the grid (9.1, stored as 9.0999…) from falling a step.
    public static func truncate(_ concentration: Double, for measure: Measure) -> Double {
        var scale = 1.0
        for _ in 0..<decimals(measure) { scale *= 10 }
        return (concentration * scale * (1 + 1e-9)).rounded(.towardZero) / scale
    }

    /// The sub-index of `concentration` (in the measure's unit), or nil for invalid input.
    public static func index(_ measure: Measure, concentration: Double) -> Outcome? {
        guard concentration.isFinite, concentration >= 0 else { return nil }
        let c = truncate(concentration, for: measure)
        let table = rows(measure)
        if c < table[0].0 { return .notApplicable }
        for (cLow, cHigh, iLow, iHigh) in table where c <= cHigh + 1e-9 {
            let value = Double(iHigh - iLow) / (cHigh - cLow) * (c - cLow) + Double(iLow)
            return .index(Int((value + 1e-9).rounded(.toNearestOrAwayFromZero)))
        }
        return .beyondIndex
    }

    /// The sub-index for one of Open-Meteo's pollutants from its µg/m³ value, converted
    /// at 25 °C and 1 atm (NO₂ ÷ 1.88, O₃ ÷ 1.96, SO₂ ÷ 2.62 to ppb; CO ÷ 1150 to ppm).
    /// Ozone takes the higher of its 8-hour and 1-hour sub-indices, as the EPA allows.
    public static func index(_ pollutant: Pollutant, microgramsPerCubicMetre value: Double) -> Outcome? {
        switch pollutant {
        case .pm2_5: return index(.pm2_5, concentration: value)
        case .pm10: return index(.pm10, concentration: value)
        case .nitrogenDioxide: return index(.nitrogenDioxide, concentration: value / 1.88)
        case .sulphurDioxide: return index(.sulphurDioxide, concentration: value / 2.62)
        case .carbonMonoxide: return index(.carbonMonoxide, concentration: value / 1150)
        case .ozone:
            let ppm = value / 1.96 / 1000
            guard let eight = index(.ozone8h, concentration: ppm), let one = index(.ozone1h, concentration: ppm)
            else { return nil }
            // Above 0.200 ppm the 8-hour table ends: the 1-hour table decides.
            if case .beyondIndex = eight, one.value != nil { return one }
            return (one.value ?? -1) > (eight.value ?? -1) ? one : eight
        }
    }

    /// The overall index (the highest sub-index) and the pollutant that sets it, from
    /// µg/m³ concentrations; nil when none is valid.
    public static func overall(_ concentrations: [Pollutant: Double]) -> (aqi: Outcome, dominant: Pollutant)? {
        var best: (Outcome, Pollutant, Int)?
        for pollutant in Pollutant.allCases {
            guard let value = concentrations[pollutant], let outcome = index(pollutant, microgramsPerCubicMetre: value),
                let number = outcome.value
            else { continue }
            if best == nil || number > best!.2 { best = (outcome, pollutant, number) }
        }
        return best.map { ($0.0, $0.1) }
    }
}
