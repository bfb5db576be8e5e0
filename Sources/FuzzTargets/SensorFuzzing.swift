import Foundation
import Readings
import Sensors

/// Each serial sensor's frames as its decoder reads them off the line (SDS011, Plantower,
/// SPS30's SHDLC, MH-Z19, and Modbus RTU for the SenseAir S8 and the SCD30), and the
/// kernel's IIO and hwmon value files.
///
/// What must hold: a value is a finite, non-negative number; and a stream gives the same
/// readings and replies however the line cuts it (the first byte says where).
enum SensorFuzzing {
    static let targets = [
        serial("sds011", "SDS011 frames") { SDS011Protocol.Decoder() },
        serial("plantower", "Plantower PMS frames (with the T's temperature and humidity)") {
            PlantowerProtocol.Decoder(humidity: true)
        },
        serial("sps30", "SPS30 SHDLC frames, stuffed bytes and all") { SPS30Protocol.Decoder() },
        serial("mhz19", "MH-Z19 frames") { MHZ19Protocol.Decoder() },
        serial("modbus-scd30", "Modbus RTU answers of an SCD30") { SCD30Protocol.decoder() },
        serial("modbus-s8", "Modbus RTU answers of a SenseAir S8") { SenseAirS8Protocol.decoder() },
        FuzzTarget("kernel-values", "IIO and hwmon value files of a climate sensor") { bytes in
            let files = [
                "in_temp_input", "in_humidityrelative_raw", "in_humidityrelative_offset", "in_humidityrelative_scale",
                "in_pressure_input", "in_concentration_co2_raw", "in_concentration_co2_scale", "temp1_input",
                "humidity1_input",
            ]
            let directory = FuzzInput.scratch.appendingPathComponent("sensor", isDirectory: true)
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, contents) in zip(files, FuzzInput.parts(bytes))
            where !(contents.first == 0x2D && contents.count == 1) {
                _ = FileManager.default.createFile(
                    atPath: directory.appendingPathComponent(name).path, contents: Data(contents))
            }
            for bus in [KernelClimateSensor.Bus.iio, .hwmon] {
                guard let values = try? KernelClimateSensor(directory: directory, bus: bus).read() else { continue }
                check(values)
            }
        },
    ]

    /// A target feeding a decoder made by `make`.
    static func serial<Decoder: FrameDecoding & Sendable>(
        _ name: String, _ what: String, _ make: @escaping @Sendable () -> Decoder
    ) -> FuzzTarget {
        FuzzTarget(name, what) { bytes in
            guard let cut = bytes.first else { return }
            let stream = Array(bytes.dropFirst())
            var whole = make()
            let once = whole.feed(stream)
            var pieces = make()
            let at = min(Int(cut), stream.count)
            let twice = pieces.feed(stream[..<at]) + pieces.feed(stream[at...])
            for frame in once {
                if case .values(let values, _) = frame { check(values) }
                if let climate = MHZ19Protocol.values(of: frame) { check(climate) }
                if let climate = SCD30Protocol.values(of: frame) { check(climate) }
                if let climate = SenseAirS8Protocol.values(of: frame) { check(climate) }
            }
            precondition(once.filter(\.isAnswer) == twice.filter(\.isAnswer), "a stream read differently when cut")
        }
    }

    static func check(_ values: ParticulateValues) {
        for value in [values.pm1_0, values.pm2_5, values.pm4_0, values.pm10, values.pm2_5CF1] {
            precondition(
                FuzzInput.finite(value) && (0...ParticulateValues.possible).contains(value ?? 0),
                "a particulate value \(String(describing: value))")
        }
        precondition(FuzzInput.finite(values.temperatureC), "a temperature that is no number")
    }

    static func check(_ values: ClimateValues) {
        for quantity in ClimateQuantity.allCases {
            guard let value = quantity.value(in: values) else { continue }
            precondition(quantity.possible.contains(value), "\(quantity.displayName) of \(value)")
        }
    }
}

/// The decoders' one shape.
protocol FrameDecoding: SendableMetatype {
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [SensorFrame]
}

extension SDS011Protocol.Decoder: FrameDecoding {}
extension PlantowerProtocol.Decoder: FrameDecoding {}
extension SPS30Protocol.Decoder: FrameDecoding {}
extension MHZ19Protocol.Decoder: FrameDecoding {}
extension ModbusRTU.Decoder: FrameDecoding {}

extension SensorFrame {
    /// A reading or a reply (not a refusal, whose byte counts depend on where reads end).
    var isAnswer: Bool {
        if case .refused = self { return false }
        return true
    }
}
