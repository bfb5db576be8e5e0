import FleetWire
import Foundation
import Settings
import TestSupport
import Testing

/// One name per device: `[mqtt] device-id`, else the topic prefix's last level (what the
/// collector reads from the topic), else the random id kept in the state directory.
@Suite struct DeviceNameTests {
    @Test func theNameIsTheConfiguredOneThenThePrefixsThenTheRandomOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var mqtt = MQTTSettings()
        let random = try DeviceIdentity.name(mqtt, stateDirectory: directory.url)
        #expect(random.count == 12 && random.allSatisfy(\.isHexDigit))
        #expect(try DeviceIdentity.name(mqtt, stateDirectory: directory.url) == random, "kept")
        mqtt.topicPrefix = "fleet/site-a/pi-4"
        #expect(try DeviceIdentity.name(mqtt, stateDirectory: directory.url) == "pi-4")
        mqtt.deviceID = "garden"
        #expect(try DeviceIdentity.name(mqtt, stateDirectory: directory.url) == "garden")
    }
}
