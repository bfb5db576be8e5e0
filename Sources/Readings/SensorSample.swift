import AirQuality

/// One reading of the sensor as airloc reports it: the mean over the sample window, how it
/// was made, and what to be careful of (`airloc sense`, schema `airloc.sense/1`).
///
/// Contract: made only from frames whose checksum held; `usAQI` is the EPA index of the
/// mean PM2.5 (the corrected one where a correction applies), an instantaneous estimate (the EPA's index is defined on 24-hour means);
/// `correctedPM2_5` is set only where the configured correction applies (Plantower CF=1
/// with humidity: the US EPA's PurpleAir formula).
public struct SensorSample: Sendable, Equatable {
    /// Why a reading may mislead.
    public enum Flag: String, Sendable, CaseIterable {
        /// Humidity above `[sensor] humidity-limit`: particles swell, the value reads high.
        case humidity
        /// Sampled before the sensor's stabilisation time after waking.
        case warmUpCutShort = "warm-up-cut-short"
        /// A value beyond the sensor's range.
        case outOfRange = "out-of-range"
    }

    /// The correction applied to PM2.5.
    public enum Correction: String, Sendable, CaseIterable {
        case none
        /// US EPA (Barkjohn et al. 2021): 0.524 × PM2.5(CF=1) − 0.0862 × RH + 5.75.
        case epaPMS = "epa-pms"
    }

    /// Which sensor.
    public var model: SensorModel
    /// Its device.
    public var device: String
    /// Its serial number, when it says.
    public var serial: String?
    /// The mean of the samples.
    public var mean: ParticulateValues
    /// How many frames were averaged.
    public var samples: Int
    /// Seconds the samples span.
    public var windowSeconds: Double
    /// The US AQI of the (corrected) PM2.5.
    public var usAQI: Int?
    /// PM2.5 after the correction, when one applies.
    public var correctedPM2_5: Double?
    /// What may make it mislead.
    public var flags: [Flag]

    /// A reading as it was kept (a logbook row): its values as they were then.
    public init(
        model: SensorModel, device: String, serial: String?, mean: ParticulateValues, samples: Int,
        windowSeconds: Double, usAQI: Int?, correctedPM2_5: Double?, flags: [Flag]
    ) {
        (self.model, self.device, self.serial, self.mean, self.samples) = (model, device, serial, mean, samples)
        (self.windowSeconds, self.usAQI, self.correctedPM2_5, self.flags) = (
            windowSeconds, usAQI, correctedPM2_5, flags
        )
    }

    /// The mean of `readings` (at least one), flagged by the rules above.
    public init(
        model: SensorModel, device: String, serial: String?, readings: [ParticulateValues], windowSeconds: Double,
        warmUpSeconds: Double, correction: Correction, humidityLimit: Double
    ) {
        (self.model, self.device, self.serial) = (model, device, serial)
        samples = readings.count
        self.windowSeconds = windowSeconds
        func mean(_ field: (ParticulateValues) -> Double?) -> Double? {
            let values = readings.compactMap(field)
            guard values.count == readings.count, !values.isEmpty else { return nil }
            return (values.reduce(0, +) / Double(values.count) * 10).rounded() / 10
        }
        self.mean = ParticulateValues(
            pm1_0: mean(\.pm1_0), pm2_5: mean(\.pm2_5) ?? 0, pm4_0: mean(\.pm4_0), pm10: mean(\.pm10) ?? 0,
            pm2_5CF1: mean(\.pm2_5CF1), temperatureC: mean(\.temperatureC), relativeHumidity: mean(\.relativeHumidity))
        if correction == .epaPMS, let cf1 = self.mean.pm2_5CF1, let humidity = self.mean.relativeHumidity {
            correctedPM2_5 = max(0, ((0.524 * cf1 - 0.0862 * humidity + 5.75) * 10).rounded() / 10)
        }
        // The correction exists because the raw value misleads: the index follows it.
        usAQI = EPAIndex.index(.pm2_5, concentration: correctedPM2_5 ?? self.mean.pm2_5)?.value
        var flags: [Flag] = []
        if let humidity = self.mean.relativeHumidity, humidity > humidityLimit { flags.append(.humidity) }
        if warmUpSeconds < model.stabilisationSeconds { flags.append(.warmUpCutShort) }
        let top = model.rangeTop
        if readings.contains(where: { [$0.pm1_0, $0.pm2_5, $0.pm4_0, $0.pm10].contains { ($0 ?? 0) > top } }) {
            flags.append(.outOfRange)
        }
        self.flags = flags
    }

    /// The reading corrected and flagged with the humidity `relativeHumidity` another
    /// sensor measured (`[sensor] humidity-from`), in place of the particulate sensor's
    /// own: the correction, the index and the humidity flag follow it; the values as read
    /// stay as they were.
    public func humidified(
        by relativeHumidity: Double, correction: Correction, humidityLimit: Double
    ) -> SensorSample {
        var sample = self
        if correction == .epaPMS, let cf1 = mean.pm2_5CF1 {
            sample.correctedPM2_5 = max(0, ((0.524 * cf1 - 0.0862 * relativeHumidity + 5.75) * 10).rounded() / 10)
        }
        sample.usAQI = EPAIndex.index(.pm2_5, concentration: sample.correctedPM2_5 ?? mean.pm2_5)?.value
        sample.flags.removeAll { $0 == .humidity }
        if relativeHumidity > humidityLimit { sample.flags.insert(.humidity, at: 0) }
        return sample
    }
}
