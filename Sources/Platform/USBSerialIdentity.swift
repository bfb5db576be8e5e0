import Foundation

/// Which USB adapter a serial device node is (vendor, product, serial number), read from
/// sysfs: what a udev rule matches to give one adapter a name of its own.
///
/// Contract: nil for a node that is not a USB serial adapter (the Pi's UART, a pty). The
/// serial number is nil for adapters without one (many CH340 boards): such an adapter
/// cannot be told from another of its kind, and a rule for it would match them all.
public struct USBSerialIdentity: Sendable, Equatable {
    /// The USB vendor id, four hex digits ("1a86").
    public var vendor: String
    /// The USB product id, four hex digits ("7523").
    public var product: String
    /// The adapter's serial number, when it has one.
    public var serial: String?

    /// An adapter's identity.
    public init(vendor: String, product: String, serial: String?) {
        (self.vendor, self.product, self.serial) = (vendor, product, serial)
    }

    /// The identity of the adapter behind `path` (a link such as /dev/airloc-pm is followed).
    public static func of(_ path: String, sysfs: String = "/sys/class/tty") -> USBSerialIdentity? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().lastPathComponent
        var directory = URL(fileURLWithPath: "\(sysfs)/\(resolved)/device").resolvingSymlinksInPath()
        // Up from the interface to the USB device, which holds idVendor.
        for _ in 0..<6 {
            let vendor = read(directory.appendingPathComponent("idVendor"))
            if let vendor, let product = read(directory.appendingPathComponent("idProduct")) {
                return USBSerialIdentity(
                    vendor: vendor, product: product, serial: read(directory.appendingPathComponent("serial")))
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// The udev line that names this adapter `/dev/<name>` (docs/sensors.md), or nil when
    /// it has no serial number to tell it apart.
    public func udevRule(name: String) -> String? {
        guard let serial else { return nil }
        return "SUBSYSTEM==\"tty\", ATTRS{idVendor}==\"\(vendor)\", ATTRS{idProduct}==\"\(product)\", "
            + "ATTRS{serial}==\"\(serial)\", SYMLINK+=\"\(name)\", GROUP=\"dialout\", MODE=\"0660\""
    }

    private static func read(_ url: URL) -> String? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
