import Readings

/// The SenseAir S8's Modbus RTU (9600 8N1; "Modbus on Senseair S8", TDE2067): input
/// registers read with function 0x04 from the any-sensor address 0xFE.
///
/// Contract: Senseair numbers registers from 1, the wire from 0: their IR4 ("Space CO2",
/// ppm) is address 3 and their IR1 (meter status) address 0. Only a checked response to
/// ``readCO2`` becomes a value; a status with any fault bit set is said as a fault, not
/// turned into a value; an exception response is neither.
public enum SenseAirS8Protocol {
    /// The address every S8 answers on a line of its own.
    public static let address: UInt8 = 0xFE
    /// Wire address of IR4, "Space CO2".
    public static let co2Register: UInt16 = 3
    /// Wire address of IR1, the meter status.
    public static let statusRegister: UInt16 = 0

    /// `FE 04 00 03 00 01 D5 C5`.
    public static let readCO2 = ModbusRTU.request(address: address, function: ModbusRTU.readInput, co2Register, 1)
    /// `FE 04 00 00 00 01 25 C5`.
    public static let readStatus = ModbusRTU.request(
        address: address, function: ModbusRTU.readInput, statusRegister, 1)

    /// A decoder for the S8's responses.
    public static func decoder() -> ModbusRTU.Decoder { ModbusRTU.Decoder(address: address) }

    /// The CO₂ of a checked one-register response (`FE 04 02 HH LL …`); nil otherwise.
    public static func values(of frame: SensorFrame) -> ClimateValues? {
        guard case .reply(ModbusRTU.readInput, let data) = frame, data.count == 2 else { return nil }
        return ClimateValues(co2PPM: Double(ModbusRTU.registers(data)[0]))
    }

    /// The faults a meter status names (bits 0x01…0x40), empty when it names none.
    public static func faults(status: UInt16) -> [String] {
        let names: [(UInt16, String)] = [
            (0x01, "fatal error"), (0x02, "offset regulation error"), (0x04, "algorithm error"),
            (0x08, "output error"), (0x10, "self-diagnostics error"), (0x20, "out of range"),
            (0x40, "memory error"),
        ]
        return names.filter { status & $0.0 != 0 }.map(\.1)
    }
}
