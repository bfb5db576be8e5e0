import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One of airloc's systemd units as systemd runs it: the properties `systemctl show`
/// prints once the unit file and every drop-in are merged, which is what the service gets.
///
/// Contract: built from `systemctl show UNIT` text alone (``init(name:show:)``), so the
/// checks that read it are tested in-process; an unknown or absent property takes
/// systemd's default (no sandboxed devices, no extra groups, root for a missing `User=`).
public struct ServiceUnit: Sendable, Equatable {
    /// The unit's name ("airloc-log.service").
    public var name: String
    /// True when systemd knows the unit (LoadState=loaded).
    public var isInstalled: Bool
    /// `User=` (root when unset).
    public var user: String
    /// `Group=`, if set (else the user's primary group).
    public var group: String?
    /// `SupplementaryGroups=`.
    public var supplementaryGroups: [String]
    /// `Environment=`, as the service's process gets it.
    public var environment: [String: String]
    /// `PrivateDevices=`: a /dev of pseudo devices only.
    public var privateDevices: Bool
    /// `DevicePolicy=`: auto, closed or strict.
    public var devicePolicy: String
    /// One `DeviceAllow=` entry: a path or a `char-NAME` class, with its access ("rw").
    public struct DeviceRule: Sendable, Equatable {
        /// `/dev/ttyUSB0` or `char-ttyUSB`.
        public var specifier: String
        /// r, w and m.
        public var access: String
    }

    /// `DeviceAllow=`.
    public var deviceAllow: [DeviceRule]
    /// ActiveState (active, failed, inactive, activating...).
    public var activeState: String
    /// UnitFileState (enabled, disabled...).
    public var unitFileState: String
    /// How often systemd restarted it since it was last started by hand (NRestarts).
    public var restarts: Int
    /// The main process's last exit status (ExecMainStatus), 0 when it has none.
    public var lastExitStatus: Int

    /// The unit described by `show`, the output of `systemctl show UNIT`.
    public init(name: String, show: String) {
        var properties: [String: [String]] = [:]
        for line in show.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            properties[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        func value(_ key: String) -> String? { properties[key]?.last.flatMap { $0.isEmpty ? nil : $0 } }
        self.name = name
        isInstalled = value("LoadState") == "loaded"
        user = value("User") ?? "root"
        group = value("Group")
        supplementaryGroups = (properties["SupplementaryGroups"] ?? []).flatMap { Self.words($0) }
        environment = [:]
        for assignment in (properties["Environment"] ?? []).flatMap({ Self.words($0) }) {
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            environment[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
        }
        privateDevices = value("PrivateDevices") == "yes"
        devicePolicy = value("DevicePolicy") ?? "auto"
        deviceAllow = (properties["DeviceAllow"] ?? []).flatMap { line in
            line.split(separator: ",").compactMap { entry -> DeviceRule? in
                let parts = entry.split(separator: " ", omittingEmptySubsequences: true)
                guard let specifier = parts.first else { return nil }
                return DeviceRule(specifier: String(specifier), access: parts.count > 1 ? String(parts[1]) : "rwm")
            }
        }
        activeState = value("ActiveState") ?? "inactive"
        unitFileState = value("UnitFileState") ?? "disabled"
        restarts = value("NRestarts").flatMap { Int($0) } ?? 0
        lastExitStatus = value("ExecMainStatus").flatMap { Int($0) } ?? 0
    }

    /// The words of a `systemctl show` list: separated by spaces, a word in double quotes
    /// kept whole (systemd quotes an environment value holding a space).
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == " " && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// The properties to ask `systemctl show` for (`-p` takes them comma-separated).
    public static let properties = [
        "LoadState", "User", "Group", "SupplementaryGroups", "Environment", "PrivateDevices", "DevicePolicy",
        "DeviceAllow", "ActiveState", "UnitFileState", "NRestarts", "ExecMainStatus",
    ]

    /// Why the service cannot see the device node at `path` (the configured name; `node` is
    /// the node it leads to, `major` its major number; `classes` maps /proc/devices' names
    /// to majors: `ttyUSB` → 188), or nil when it can.
    public func deviceHidden(path: String, node: String, major: UInt32, classes: [String: UInt32]) -> String? {
        if privateDevices {
            return "\(name) has PrivateDevices=yes: its /dev holds no serial port, so \(path) is not there for it"
        }
        guard devicePolicy == "closed" || devicePolicy == "strict" else { return nil }
        let allowed = deviceAllow.contains { entry in
            guard entry.access.contains("r"), entry.access.contains("w") else { return false }
            if entry.specifier.hasPrefix("char-") {
                let pattern = String(entry.specifier.dropFirst(5))
                return classes.contains { fnmatch(pattern, $0.key, 0) == 0 && $0.value == major }
            }
            return entry.specifier == path || entry.specifier == node
        }
        return allowed
            ? nil
            : "\(name) has DevicePolicy=\(devicePolicy) and no DeviceAllow= for \(path) (major \(major)) with rw"
    }
}
