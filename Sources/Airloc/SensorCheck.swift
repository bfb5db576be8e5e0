import Foundation
import Platform
import Sensors
import Settings

extension HealthCheck {
    /// The configured particulate sensor: the node exists, this user may open it, it
    /// answers (one frame after waking, not warmed up: a quick look, then back to sleep),
    /// and which adapter it is, with the udev line that names it `/dev/airloc-pm`.
    /// Nothing without `[sensor] model`.
    public static func sensor(_ settings: Settings) async -> [HealthCheck] {
        guard var plan = settings.sensor.plan else { return [] }
        let name = "sensor"
        let device = plan.device
        guard FileManager.default.fileExists(atPath: device) else {
            return [
                HealthCheck(
                    name: name, status: .fail, detail: "\(device) does not exist (\(plan.model.displayName))",
                    advice: "plug the sensor in, or set [sensor] device (AIRLOC_SENSOR_DEVICE); docs/sensors.md "
                        + "has a udev rule that names your adapter /dev/airloc-pm")
            ]
        }
        let access = DeviceAccess(path: device)
        guard access.isCharacterDevice else {
            return [
                HealthCheck(
                    name: name, status: .fail, detail: "\(device) is not a serial device", advice: access.remedy)
            ]
        }
        guard access.isOpenable else {
            return [
                HealthCheck(
                    name: name, status: .fail, detail: "this user cannot open \(device) (group \(access.group))",
                    advice: access.remedy)
            ]
        }
        // The logger's sensor is not ours to wake or put to sleep mid-reading: its rows say
        // whether it answers (`log status`).
        if let pid = DeviceLock.holder(of: device) {
            return [
                HealthCheck(
                    name: name, status: .ok,
                    detail: "\(plan.model.displayName) on \(device) is held by the logger (airloc, PID \(pid)); "
                        + "not touched (its readings: `airloc log status`, `airloc sense`)")
            ]
        }
        var checks: [HealthCheck] = []
        (plan.warmUp, plan.sample) = (.zero, .seconds(1))
        switch await SignalWatch.cleaningUp(
            notice: SerialSensor.interruptedNotice,
            { [plan] in
                await SerialSensor(plan: plan).reading()
            })
        {
        case .success(let sample):
            var detail = "\(plan.model.displayName) on \(device) answers"
            if let serial = sample.serial { detail += ", serial \(serial)" }
            detail += "; PM2.5 \(sample.mean.pm2_5) µg/m³ (not warmed up)"
            checks.append(HealthCheck(name: name, status: .ok, detail: detail))
        case .failure(let failure):
            checks.append(
                HealthCheck(
                    name: name, status: .fail, detail: failure.description,
                    advice: "check [sensor] model (\(plan.model.rawValue)), the wiring (TX to RX) and the 5 V supply"))
        }
        if device != SensorSettings.preferredDevice, let identity = USBSerialIdentity.of(device) {
            if let rule = identity.udevRule(name: "airloc-pm") {
                checks.append(
                    HealthCheck(
                        name: "sensor name", status: .warn, detail: "\(device) may change its name when replugged",
                        advice: "name it /dev/airloc-pm: put this line in /etc/udev/rules.d/61-airloc-pm.rules: \(rule)"
                    ))
            } else {
                checks.append(
                    HealthCheck(
                        name: "sensor name", status: .warn,
                        detail: "the adapter (\(identity.vendor):\(identity.product)) has no serial number",
                        advice: "a udev rule could not tell it from another of its kind (GPS boards use the same "
                            + "bridges): keep [sensor] device, or use an adapter with a serial number"))
            }
        }
        return checks
    }
}
