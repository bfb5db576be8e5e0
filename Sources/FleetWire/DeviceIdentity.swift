import Foundation
import Platform

/// This device's stable id for a fleet: the MQTT client id and topic prefix default to
/// it, and Home Assistant's entity ids are made from it.
///
/// Contract: twelve lowercase hex digits, made once at random and kept in the state
/// directory (`device-id`, 0600); it says nothing about the device or its owner.
public enum DeviceIdentity {
    /// This device's one name in the fleet: in its rows, hello and acknowledgements, its
    /// topics, Home Assistant's discovery and the uploads. `[mqtt] device-id` when set;
    /// else the last level of `[mqtt] topic-prefix` when that is set (`airloc/pi-4` names
    /// `pi-4`, as the collector reads it from the topic); else the random ``id(stateDirectory:)``.
    public static func name(_ mqtt: MQTTSettings, stateDirectory: URL) throws(FileError) -> String {
        if let name = mqtt.deviceID { return name }
        if let prefix = mqtt.topicPrefix, let last = prefix.split(separator: "/").last, !last.isEmpty {
            return String(last)
        }
        return try id(stateDirectory: stateDirectory)
    }

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
