import Diagnosis
import Foundation
import Location
import TestSupport
import Testing

/// `doctor --service`'s view of a unit: what systemd runs, checked against the station's
/// devices and the service's authorization, from made-up facts and the shipped unit files.
@Suite struct ServiceCheckTests {
    /// The shipped unit's settings as systemd would show them: its `Key=value` lines (a
    /// unit file and `systemctl show` share the form), comments left out.
    func shipped(_ name: String) throws -> ServiceUnit {
        let file = PackagePaths.file("systemd/\(name)")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.hasPrefix(";") }
        return ServiceUnit(name: name, show: (lines + ["LoadState=loaded"]).joined(separator: "\n"))
    }

    let airloc = ServiceCheck.Account(name: "airloc", uid: 105, groups: ["airloc"])
    let sensor = ServiceCheck.Device(
        section: "[sensor]", path: "/dev/ttyUSB0", node: "/dev/ttyUSB0", major: 188, owner: 0, group: "dialout",
        mode: 0o660)

    @Test func parsesWhatSystemctlShows() {
        let unit = ServiceUnit(
            name: "airloc-log.service",
            show: """
                LoadState=loaded
                User=airloc
                Group=airloc
                SupplementaryGroups=dialout i2c
                Environment=XDG_STATE_HOME=/var/lib "NOTE=two words" AIRLOC_LOG_DATABASE=/var/lib/airloc/logbook.sqlite
                PrivateDevices=no
                DevicePolicy=closed
                DeviceAllow=char-ttyUSB rw
                DeviceAllow=/dev/ttyAMA0 r
                ActiveState=active
                UnitFileState=enabled
                NRestarts=3
                ExecMainStatus=0
                """)
        #expect(unit.isInstalled && unit.user == "airloc" && unit.group == "airloc")
        #expect(unit.supplementaryGroups == ["dialout", "i2c"])
        #expect(unit.environment["XDG_STATE_HOME"] == "/var/lib" && unit.environment["NOTE"] == "two words")
        #expect(unit.environment["AIRLOC_LOG_DATABASE"] == "/var/lib/airloc/logbook.sqlite")
        #expect(!unit.privateDevices && unit.devicePolicy == "closed" && unit.restarts == 3)
        #expect(unit.deviceAllow.map(\.specifier) == ["char-ttyUSB", "/dev/ttyAMA0"])
        // char-ttyUSB allows the USB adapters' major; /dev/ttyAMA0 only for reading: refused.
        #expect(
            unit.deviceHidden(path: "/dev/airloc-pm", node: "/dev/ttyUSB0", major: 188, classes: ["ttyUSB": 188]) == nil
        )
        #expect(
            unit.deviceHidden(path: "/dev/ttyAMA0", node: "/dev/ttyAMA0", major: 204, classes: ["ttyAMA": 204]) != nil)
        #expect(ServiceCheck.state(unit).status == .warn, "restarted by systemd 3 times")
    }

    /// The defects a Pi owner met: the unit hid every serial port and its user was not in
    /// dialout. The shipped logger's unit opens the sensor; the old shape fails, naming the
    /// airloc user and the unit in its advice.
    @Test func theShippedLoggerUnitOpensADialoutSensorAndTheOldOneDidNot() throws {
        let unit = try shipped("airloc-log.service")
        #expect(unit.user == "airloc" && unit.supplementaryGroups.contains("dialout"))
        let now = ServiceCheck.devices(unit, account: airloc, devices: [sensor], classes: ["ttyUSB": 188])
        #expect(now.map(\.status) == [.ok], "\(now)")
        #expect(now.first?.detail.contains("group dialout") == true)

        var hidden = unit
        hidden.privateDevices = true
        let sandboxed = ServiceCheck.devices(hidden, account: airloc, devices: [sensor], classes: ["ttyUSB": 188])
        #expect(sandboxed.map(\.status) == [.fail])
        #expect(sandboxed.first?.detail.contains("PrivateDevices=yes") == true)
        #expect(sandboxed.first?.advice?.contains("systemctl edit airloc-log") == true)

        var outside = unit
        outside.supplementaryGroups = []
        let refused = ServiceCheck.devices(outside, account: airloc, devices: [sensor], classes: ["ttyUSB": 188])
        #expect(refused.map(\.status) == [.fail])
        let advice = refused.first?.advice ?? ""
        #expect(advice.contains("usermod -aG dialout airloc") && !advice.contains("$USER"), "\(advice)")
    }

    /// The units read the administrator's file once, as the administrator's: none sets
    /// XDG_CONFIG_HOME (=/etc made the file the user's too, and [authorization] refused).
    @Test func noUnitNamesTheAdministratorsDirectoryAsTheUsers() throws {
        for name in ServiceView.units {
            let unit = try shipped(name)
            #expect(unit.environment["XDG_CONFIG_HOME"] == nil, "\(name): \(unit.environment)")
            #expect(unit.environment["XDG_STATE_HOME"] == "/var/lib", "\(name)")
        }
    }

    @Test func aMissingDeviceAndAMissingUserAreSaid() throws {
        let unit = try shipped("airloc-log.service")
        let gone = ServiceCheck.Device(section: "[sensor.co2]", path: "/dev/ttyAMA0", node: nil)
        let missing = ServiceCheck.devices(unit, account: airloc, devices: [gone], classes: [:])
        #expect(missing.map(\.status) == [.fail] && missing.first?.detail == "/dev/ttyAMA0 does not exist")
        #expect(ServiceCheck.account(unit, account: nil).status == .fail)
        #expect(ServiceCheck.account(unit, account: airloc).detail == "airloc (groups: airloc, dialout)")
    }

    @Test func theLoggerNeedsTheAlwaysGrantOrThePolicy() throws {
        let unit = try shipped("airloc-log.service")
        #expect(ServiceCheck.unattended(unit, user: "airloc", status: .authorizedAlways).status == .ok)
        let asked = ServiceCheck.unattended(unit, user: "airloc", status: .authorizedWhenInUse)
        #expect(asked.status == .fail)
        #expect(asked.advice?.contains("sudo -u airloc env XDG_STATE_HOME=/var/lib airloc auth grant --always") == true)
        #expect(asked.advice?.contains("policy = allow") == true)
    }

    @Test func aFailedUnitSaysItsExitStatusAndWhereItsWordsAre() {
        let unit = ServiceUnit(
            name: "airloc-serve.service",
            show: "LoadState=loaded\nActiveState=failed\nUnitFileState=enabled\nExecMainStatus=69\n")
        let state = ServiceCheck.state(unit)
        #expect(state.status == .fail && state.detail.contains("status 69"))
        #expect(state.advice?.contains("journalctl -u airloc-serve") == true)
        let absent = ServiceUnit(name: "airloc-collect.service", show: "LoadState=not-found\n")
        #expect(ServiceCheck.state(absent).status == .fail)
    }
}
