import Foundation
import Platform

/// This device's stable id for a fleet: the MQTT client id and topic prefix default to
/// it, and Home Assistant's entity ids are made from it.
///
/// Contract: twelve lowercase hex digits, made once at random and kept in the state
/// directory (`device-id`, 0600); it says nothing about the device or its owner.
public enum DeviceIdentity {
    /// The most characters (Unicode scalars) a device name may have: it is a key of the
    /// collector's tables and a level of every topic of the device.
    public static let maximumNameLength = 64

    /// True when `name` may name a device: 1 to ``maximumNameLength`` letters, digits, `-`
    /// and `_` — the rule of `[mqtt] device-id`, and the collector's for the device level
    /// of a topic (a control, format or bidirectional character, a space or a slash is none
    /// of these).
    public static func isValidName(_ name: String) -> Bool {
        var count = 0
        for scalar in name.unicodeScalars {
            count += 1
            guard count <= maximumNameLength else { return false }
            if scalar.isASCII {
                let value = scalar.value
                let ok =
                    (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
                    || value == 0x2D || value == 0x5F
                guard ok else { return false }
            } else if !nameCharacters.contains(scalar) {
                return false
            }
        }
        return count > 0
    }

    private static let nameCharacters = CharacterSet.alphanumerics

    /// The id kept in `stateDirectory` (made there the first time).
    public static func id(stateDirectory: URL) throws(FileError) -> String {
        let file = stateDirectory.appendingPathComponent("device-id")
        if let text = try? String(contentsOf: file, encoding: .utf8) {
            let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if id.count == 12, id.allSatisfy(\.isHexDigit) { return id }
        }
        var generator = SystemRandomNumberGenerator()
        let id = (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        try PrivateDirectory.ensure(stateDirectory)
        try AtomicFile.write(Array((id + "\n").utf8), to: file)
        return id
    }
}
