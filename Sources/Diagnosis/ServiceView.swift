import Airloc
import Configuration
import Foundation
import Location
import Platform
import Settings

#if canImport(Glibc)
    import Glibc
#endif

/// `airloc doctor --service`: doctor as airloc's services see the station. For each unit
/// (the logger's always; the page's and the collector's when enabled or running) it reads
/// what systemd runs (`systemctl show`: user, groups, environment, device sandbox), loads
/// the configuration as that unit reads it, and checks the unit's user against each
/// configured serial device and the authorization in the unit's state directory
/// (``ServiceCheck``); then the whole doctor runs with the logger's configuration.
///
/// Contract: needs root (the service's state directory is its own, mode 0700) and
/// systemd; asks `systemctl` with a deadline, so a systemd that does not answer is a
/// finding, never a hang. Changes nothing.
public enum ServiceView {
    /// The units, the logger's first.
    public static let units = ["airloc-log.service", "airloc-serve.service", "airloc-collect.service"]

    /// The checks and the verdict (``Diagnosis/Verdict``) of doctor as the services.
    public static func run(wording: Checkup.Wording) async -> Diagnosis {
        var checks: [HealthCheck] = []
        var loggerSettings: (Settings, [String: String])?
        var misconfigured = false
        for (index, name) in units.enumerated() {
            guard let show = systemctlShow(name) else {
                checks.append(
                    HealthCheck(
                        name: "unit \(name)", status: .fail, detail: "systemctl did not answer",
                        advice: "run it on the station, where systemd is PID 1"))
                break
            }
            let unit = ServiceUnit(name: name, show: show)
            let isLogger = index == 0
            // The page and the collector only where the administrator uses them.
            guard isLogger || unit.activeState != "inactive" || unit.unitFileState == "enabled" else { continue }
            checks.append(ServiceCheck.state(unit))
            let account = account(of: unit)
            checks.append(ServiceCheck.account(unit, account: account))
            let environment = environment(of: unit)
            let settings: Settings
            do throws(ConfigurationError) {
                settings = try ConfigurationFiles.load(environment: environment, explicitPath: nil)
            } catch {
                misconfigured = true
                checks.append(
                    HealthCheck(
                        name: "configuration for \(ServiceCheck.short(unit))", status: .fail,
                        detail: "\(error.message) (the unit would exit 78)", advice: "fix the line named"))
                continue
            }
            let files = settings.sources.isEmpty ? "defaults (no file)" : settings.sources.joined(separator: ", ")
            checks.append(
                HealthCheck(name: "configuration for \(ServiceCheck.short(unit))", status: .ok, detail: files))
            guard isLogger else { continue }
            loggerSettings = (settings, environment)
            checks += ServiceCheck.devices(
                unit, account: account, devices: serialDevices(settings), classes: characterDevices())
            let machine = LocationAuthorization(stored: settings.authorizationStore.load(), policy: settings.policy)
            checks.append(ServiceCheck.unattended(unit, user: unit.user, status: machine.status))
        }
        guard let (settings, environment) = loggerSettings else {
            return Diagnosis(
                checks: checks, verdict: misconfigured ? .configuration : .unavailable, checkup: Checkup())
        }
        var whole = await Diagnosis.run(settings, environment: environment, configurationError: nil, wording: wording)
        whole.checks = checks + whole.checks.filter { $0.name != "configuration" }
        if whole.verdict == .ok && checks.contains(where: { $0.status == .fail }) { whole.verdict = .unavailable }
        if misconfigured { whole.verdict = .configuration }
        return whole
    }

    /// The environment the unit's process gets: systemd's for a `User=` service, then
    /// the unit's `Environment=`.
    static func environment(of unit: ServiceUnit) -> [String: String] {
        var environment = ["PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"]
        if let entry = getpwnam(unit.user) {
            environment["HOME"] = String(cString: entry.pointee.pw_dir)
        }
        environment.merge(unit.environment) { $1 }
        return environment
    }

    /// The unit's user and its groups, nil when there is no such user.
    static func account(of unit: ServiceUnit) -> ServiceCheck.Account? {
        guard let entry = getpwnam(unit.user) else { return nil }
        let uid = entry.pointee.pw_uid
        var gid = entry.pointee.pw_gid
        if let group = unit.group, let named = getgrnam(group) { gid = named.pointee.gr_gid }
        var count: Int32 = 64
        var ids = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(unit.user, gid, &ids, &count) < 0 {
            ids = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(unit.user, gid, &ids, &count)
        }
        let names = ids.prefix(Int(max(count, 0))).compactMap { id in
            getgrgid(id).map { String(cString: $0.pointee.gr_name) }
        }
        return ServiceCheck.Account(name: unit.user, uid: uid, groups: Set(names + (unit.group.map { [$0] } ?? [])))
    }

    /// The serial devices the configuration names: `[sensor]`'s and each serial `[sensor.NAME]`'s.
    static func serialDevices(_ settings: Settings) -> [ServiceCheck.Device] {
        var named: [(String, String)] = []
        if settings.sensor.model != nil { named.append(("[sensor]", settings.sensor.resolvedDevice)) }
        for sensor in settings.climateSensors {
            if let device = sensor.device { named.append(("[sensor.\(sensor.name)]", device)) }
        }
        return named.map { section, path in
            var info = stat()
            guard stat(path, &info) == 0 else { return ServiceCheck.Device(section: section, path: path, node: nil) }
            let node = realpath(path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            }
            // "?" for a group without a name, as DeviceAccess says it: no group to join.
            let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "?"
            return ServiceCheck.Device(
                section: section, path: path, node: node ?? path, major: majorNumber(UInt64(info.st_rdev)),
                owner: info.st_uid, group: group, mode: UInt32(info.st_mode) & 0o7777)
        }
    }

    /// A device number's major part, as glibc's major() (a macro Swift does not import).
    static func majorNumber(_ device: UInt64) -> UInt32 {
        UInt32(((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff)))
    }

    /// /proc/devices' character devices: name → major ("ttyUSB" → 188).
    static func characterDevices() -> [String: UInt32] {
        guard let text = try? String(contentsOfFile: "/proc/devices", encoding: .utf8) else { return [:] }
        var classes: [String: UInt32] = [:]
        for line in text.split(separator: "\n") {
            if line.hasPrefix("Block") { break }
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count == 2, let major = UInt32(parts[0]) { classes[String(parts[1])] = major }
        }
        return classes
    }

    /// `systemctl show` of the unit's properties, nil when systemctl is missing or does not
    /// answer within 10 s.
    static func systemctlShow(_ unit: String) -> String? {
        let candidates: [String] = ["/usr/bin/systemctl", "/bin/systemctl"]
        guard let systemctl = candidates.first(where: { access($0, X_OK) == 0 }) else {
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: systemctl)
        process.arguments = ["show", "-p", ServiceUnit.properties.joined(separator: ","), "--", unit]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        // A systemd that does not answer: the process is ended, which closes the pipe.
        let answered = GuardedState(false)
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            if !answered.change({ $0 }) { kill(pid, SIGTERM) }
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        answered.change { $0 = true }
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
