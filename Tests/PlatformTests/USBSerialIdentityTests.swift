import Foundation
import Platform
import TestSupport
import Testing

/// The adapter behind a serial node, read from a sysfs tree laid out as the kernel does
/// (tty → interface → USB device), and the udev line made from it.
@Suite struct USBSerialIdentityTests {
    static func sysfs(serial: String?) throws -> TemporaryDirectory {
        let root = try TemporaryDirectory()
        let device = root.file("devices/usb1/1-1")
        let interface = device.appendingPathComponent("1-1:1.0/ttyUSB0")
        try FileManager.default.createDirectory(at: interface, withIntermediateDirectories: true)
        try "1a86\n".write(to: device.appendingPathComponent("idVendor"), atomically: true, encoding: .utf8)
        try "7523\n".write(to: device.appendingPathComponent("idProduct"), atomically: true, encoding: .utf8)
        if let serial {
            try "\(serial)\n".write(to: device.appendingPathComponent("serial"), atomically: true, encoding: .utf8)
        }
        let tty = root.file("class/tty/ttyUSB0")
        try FileManager.default.createDirectory(at: tty, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: tty.appendingPathComponent("device"), withDestinationURL: interface)
        return root
    }

    @Test func anAdapterWithASerialNumberGetsARuleOfItsOwn() throws {
        let root = try Self.sysfs(serial: "A10KX3")
        defer { root.remove() }
        let identity = try #require(USBSerialIdentity.of("/dev/ttyUSB0", sysfs: root.file("class/tty").path))
        #expect(identity == USBSerialIdentity(vendor: "1a86", product: "7523", serial: "A10KX3"))
        #expect(
            identity.udevRule(name: "airloc-pm")
                == "SUBSYSTEM==\"tty\", ATTRS{idVendor}==\"1a86\", ATTRS{idProduct}==\"7523\", "
                + "ATTRS{serial}==\"A10KX3\", SYMLINK+=\"airloc-pm\", GROUP=\"dialout\", MODE=\"0660\"")
    }

    /// A CH340 without a serial number is like every other CH340 (GPS boards use it too):
    /// no rule that would match them all.
    @Test func anAdapterWithoutOneGetsNoRule() throws {
        let root = try Self.sysfs(serial: nil)
        defer { root.remove() }
        let identity = try #require(USBSerialIdentity.of("/dev/ttyUSB0", sysfs: root.file("class/tty").path))
        #expect(identity.serial == nil && identity.udevRule(name: "airloc-pm") == nil)
        #expect(USBSerialIdentity.of("/dev/ttyUSB7", sysfs: root.file("class/tty").path) == nil)
    }
}
