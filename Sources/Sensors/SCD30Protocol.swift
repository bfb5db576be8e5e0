import Readings

/// The Sensirion SCD30's Modbus mode (19200 8N1, address 0x61; "Interface Description
/// Sensirion SCD30", and the kernel's drivers/iio/chemical/scd30_serial.c).
///
/// Contract: continuous measurement is started with function 0x06 on register 0x0036 (the
/// value is the ambient pressure in mbar, 0 for none; the sensor echoes the request);
/// "data ready" is register 0x0027; a measurement is six holding registers from 0x0028:
/// CO₂ (ppm), temperature (°C) and relative humidity (%), three IEEE-754 floats, most
/// significant byte first. Only a checked six-register response becomes values, and a
/// float that is not a finite number is no value.
public enum SCD30Protocol {
    /// The sensor's Modbus address.
    public static let address: UInt8 = 0x61

    /// Start continuous measurement, compensated for `pressure` mbar (0: none):
    /// `61 06 00 36 00 00 60 64` without.
    public static func startContinuous(pressureMbar pressure: UInt16 = 0) -> [UInt8] {
        ModbusRTU.request(address: address, function: ModbusRTU.writeRegister, 0x0036, pressure)
    }

    /// Ask whether a measurement is ready: `61 03 00 27 00 01 3D A1`.
    public static let dataReady = ModbusRTU.request(address: address, function: ModbusRTU.readHolding, 0x0027, 1)
    /// Read the measurement: `61 03 00 28 00 06 4C 60`.
    public static let readMeasurement = ModbusRTU.request(
        address: address, function: ModbusRTU.readHolding, 0x0028, 6)

    /// A decoder for the SCD30's responses.
    public static func decoder() -> ModbusRTU.Decoder { ModbusRTU.Decoder(address: address) }

    /// True for a response to ``dataReady`` that says a measurement is ready.
    public static func isReady(_ frame: SensorFrame) -> Bool {
        guard case .reply(ModbusRTU.readHolding, let data) = frame, data.count == 2 else { return false }
        return ModbusRTU.registers(data)[0] == 1
    }

    /// The values of a response to ``readMeasurement``; nil for any other frame.
    public static func values(of frame: SensorFrame) -> ClimateValues? {
        guard case .reply(ModbusRTU.readHolding, let data) = frame, data.count == 12 else { return nil }
        let floats = stride(from: 0, to: 12, by: 4).map { offset -> Double? in
            let bits = data[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let value = Float(bitPattern: bits)
            return value.isFinite ? Double(value) : nil
        }
        let values = ClimateValues(co2PPM: floats[0], temperatureC: floats[1], relativeHumidity: floats[2])
        return values.isEmpty ? nil : values
    }
}
