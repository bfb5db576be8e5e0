import Airloc
import Location
import Platform

/// `doctor --service`'s findings about one unit, from facts gathered elsewhere
/// (``ServiceView``): whether the unit is installed and running without restarts, whether
/// its user exists and is in the groups its devices need, whether each configured serial
/// device is there inside the unit's sandbox and openable by that user, and whether the
/// logger may sense unattended. Pure: tested with made-up facts.
///
/// Contract: every failure's advice names the unit's user and the unit (`sudo usermod -aG
/// dialout airloc`, `sudo systemctl edit airloc-log`), never "$USER", since the
/// administrator who reads it is not the service.
public struct ServiceCheck: Sendable {
    /// The service's account as the system knows it.
    public struct Account: Sendable, Equatable {
        /// Its name ("airloc").
        public var name: String
        /// Its user id.
        public var uid: UInt32
        /// The names of every group it is in (its primary group included).
        public var groups: Set<String>

        /// An account.
        public init(name: String, uid: UInt32, groups: Set<String>) {
            (self.name, self.uid, self.groups) = (name, uid, groups)
        }
    }

    /// A configured serial device as the host sees it.
    public struct Device: Sendable, Equatable {
        /// Whose it is: "[sensor]" or "[sensor.co2]".
        public var section: String
        /// The configured path (/dev/airloc-pm).
        public var path: String
        /// The node it leads to (/dev/ttyUSB0), nil when it does not exist.
        public var node: String?
        /// The node's major number.
        public var major: UInt32
        /// The node's owner, group (by name) and permission bits.
        public var owner: UInt32
        /// The node's group's name.
        public var group: String
        /// Permission bits (0o660).
        public var mode: UInt32

        /// A device's facts.
        public init(
            section: String, path: String, node: String?, major: UInt32 = 0, owner: UInt32 = 0,
            group: String = "root", mode: UInt32 = 0
        ) {
            (self.section, self.path, self.node, self.major) = (section, path, node, major)
            (self.owner, self.group, self.mode) = (owner, group, mode)
        }
    }

    /// The unit's name without ".service", as `systemctl` takes it.
    static func short(_ unit: ServiceUnit) -> String {
        unit.name.hasSuffix(".service") ? String(unit.name.dropLast(8)) : unit.name
    }

    /// The unit itself: installed, running, restarted.
    public static func state(_ unit: ServiceUnit) -> HealthCheck {
        let name = short(unit)
        let check = "unit \(unit.name)"
        guard unit.isInstalled else {
            return HealthCheck(
                name: check, status: .fail, detail: "not installed",
                advice: "install the airloc package (or `sudo make install`)")
        }
        let state = "\(unit.activeState), \(unit.unitFileState)"
        if unit.activeState == "failed" {
            return HealthCheck(
                name: check, status: .fail, detail: "\(state): it exited with status \(unit.lastExitStatus)",
                advice: "fix what the checks below find, then `sudo systemctl restart \(name)`; "
                    + "`journalctl -u \(name) -n 20` shows its words")
        }
        if unit.restarts > 0 {
            return HealthCheck(
                name: check, status: .warn,
                detail: "\(state), restarted \(unit.restarts) time\(unit.restarts == 1 ? "" : "s") by systemd",
                advice: "`journalctl -u \(name)` says why it stopped")
        }
        return HealthCheck(name: check, status: .ok, detail: state)
    }

    /// The unit's user, and the groups it runs with (its own and `SupplementaryGroups=`).
    public static func account(_ unit: ServiceUnit, account: Account?) -> HealthCheck {
        guard let account else {
            return HealthCheck(
                name: "service user", status: .fail, detail: "\(unit.name) runs as \(unit.user), who does not exist",
                advice: "reinstall the airloc package, which makes the user")
        }
        let groups = account.groups.union(unit.supplementaryGroups).sorted()
        return HealthCheck(
            name: "service user", status: .ok, detail: "\(account.name) (groups: \(groups.joined(separator: ", ")))")
    }

    /// Each configured serial device: there inside the unit's sandbox, and openable by its
    /// user with the unit's groups.
    public static func devices(
        _ unit: ServiceUnit, account: Account?, devices: [Device], classes: [String: UInt32]
    ) -> [HealthCheck] {
        let name = short(unit)
        return devices.map { device in
            let check = "\(device.section) \(device.path) for \(name)"
            guard let node = device.node else {
                return HealthCheck(
                    name: check, status: .fail, detail: "\(device.path) does not exist",
                    advice: "plug the sensor in, or set \(device.section) device to its port")
            }
            if let hidden = unit.deviceHidden(path: device.path, node: node, major: device.major, classes: classes) {
                return HealthCheck(
                    name: check, status: .fail, detail: hidden,
                    advice: "`sudo systemctl edit \(name)`: under [Service], PrivateDevices=no (the package's unit "
                        + "has it), then `sudo systemctl restart \(name)`")
            }
            guard let account else {
                return HealthCheck(
                    name: check, status: .fail, detail: "no user to open it as", advice: "see service user")
            }
            let groups = account.groups.union(unit.supplementaryGroups)
            let mode = device.mode
            let opens =
                account.uid == 0 || (device.owner == account.uid && mode & 0o600 == 0o600)
                || (groups.contains(device.group) && mode & 0o060 == 0o060) || mode & 0o006 == 0o006
            if opens {
                let via =
                    account.uid == 0 ? "root" : groups.contains(device.group) ? "group \(device.group)" : "its mode"
                return HealthCheck(
                    name: check, status: .ok,
                    detail:
                        "\(node == device.path ? node : "\(device.path) → \(node)") opens for \(account.name) (\(via))")
            }
            let advice: String
            if DeviceAccess.joiningHelps(group: device.group, mode: mode) {
                advice =
                    "`sudo usermod -aG \(device.group) \(account.name)` (or SupplementaryGroups=\(device.group) with "
                    + "`sudo systemctl edit \(name)`), then `sudo systemctl restart \(name)`"
            } else {
                advice =
                    "give the port group dialout with a udev rule (GROUP=\"dialout\", MODE=\"0660\"; "
                    + "docs/sensors.md), then `sudo systemctl restart \(name)`"
            }
            let modeText = String(mode & 0o7777, radix: 8)
            return HealthCheck(
                name: check, status: .fail,
                detail: "\(account.name) cannot open \(node) (group \(device.group), mode 0\(modeText))", advice: advice
            )
        }
    }

    /// Whether the logger may sense unattended as this unit's user: the always grant in the
    /// unit's state directory, or the administrator's `policy = allow`.
    public static func unattended(_ unit: ServiceUnit, user: String, status: AuthorizationStatus) -> HealthCheck {
        let name = "unattended sensing for \(short(unit))"
        if status == .authorizedAlways {
            return HealthCheck(name: name, status: .ok, detail: "allowed (\(status.rawValue))")
        }
        let stateHome = unit.environment["XDG_STATE_HOME"].map { "env XDG_STATE_HOME=\($0) " } ?? ""
        return HealthCheck(
            name: name, status: .fail,
            detail: "\(status.rawValue) for \(user): the logger would stop at once (exit 77)",
            advice: "`sudo -u \(user) \(stateHome)airloc auth grant --always`, or [authorization] policy = allow "
                + "in /etc/airloc/airloc.conf")
    }
}
