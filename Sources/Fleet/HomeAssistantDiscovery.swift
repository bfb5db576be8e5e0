import FleetWire
import Foundation
import Readings
import Web

/// Home Assistant MQTT discovery for one device: retained config messages that make its
/// air-quality sensors and (unless the position is withheld) a device tracker appear.
///
/// Contract: ids are stable across restarts (`airloc_<device id>_<sensor>`); sensors read
/// `<prefix>/state`, the tracker `<prefix>/position`; all share the availability topic
/// `<prefix>/status`; a `[sensor.NAME]` sensor's entities (`airloc_<device id>_<NAME>_co2`, …)
/// read `<prefix>/measured/NAME`, one for each value its model measures; a measured entity
/// expires (`expire_after`) after its sensor's freshness window (SensorSettings.freshness).
/// Units follow Home Assistant's lists (µg/m³ with the micro sign);
/// carbon monoxide has no device class (Home Assistant's is in ppm). The entity id is
/// suggested with `default_entity_id` (`sensor.airloc_<device id>_<sensor>`), which
/// replaced `object_id` in Home Assistant 2025.10; 2026.4 no longer reads `object_id`.
public struct HomeAssistantDiscovery: Sendable {
    /// The device's id: entity ids are made from it.
    public var deviceID: String
    /// The device's topics' prefix.
    public var prefix: String
    /// Home Assistant's discovery prefix.
    public var discoveryPrefix: String
    /// A device tracker too (not when the position is withheld).
    public var tracker: Bool
    /// The particulate sensor, when one is configured: its measured entities.
    public var measured: SensorModel? = nil
    /// The CO₂ and climate sensors (`[sensor.NAME]`): their entities.
    public var climate: [(name: String, model: ClimateModel)] = []
    /// Each measured state topic's freshness window, seconds, by its suffix (`measured`,
    /// `measured/NAME`): its entities' `expire_after`, so that Home Assistant shows a
    /// reading older than the window as unavailable, as every other outlet leaves it out.
    public var freshness: [String: TimeInterval] = [:]

    /// One entity.
    public struct Sensor: Sendable {
        var object: String
        var name: String
        var field: String
        var deviceClass: String?
        var unit: String?
    }

    static let sensors: [Sensor] = [
        Sensor(object: "aqi", name: "US AQI", field: "us_aqi", deviceClass: "aqi", unit: nil),
        Sensor(object: "pm25", name: "PM2.5", field: "pm2_5", deviceClass: "pm25", unit: "µg/m³"),
        Sensor(object: "pm10", name: "PM10", field: "pm10", deviceClass: "pm10", unit: "µg/m³"),
        Sensor(
            object: "nitrogen_dioxide", name: "Nitrogen dioxide", field: "nitrogen_dioxide",
            deviceClass: "nitrogen_dioxide", unit: "µg/m³"),
        Sensor(object: "ozone", name: "Ozone", field: "ozone", deviceClass: "ozone", unit: "µg/m³"),
        Sensor(
            object: "sulphur_dioxide", name: "Sulphur dioxide", field: "sulphur_dioxide",
            deviceClass: "sulphur_dioxide", unit: "µg/m³"),
        Sensor(
            object: "carbon_monoxide", name: "Carbon monoxide", field: "carbon_monoxide", deviceClass: nil,
            unit: "µg/m³"),
        Sensor(object: "category", name: "Air quality", field: "category_name", deviceClass: nil, unit: nil),
    ]

    /// The measured entities a sensor adds, read from `<prefix>/measured`.
    static func measuredSensors(_ model: SensorModel) -> [Sensor] {
        var sensors = [
            Sensor(object: "measured_pm25", name: "PM2.5 measured", field: "pm2_5", deviceClass: "pm25", unit: "µg/m³"),
            Sensor(object: "measured_pm10", name: "PM10 measured", field: "pm10", deviceClass: "pm10", unit: "µg/m³"),
        ]
        if model != .sds011 {
            sensors.insert(
                Sensor(object: "measured_pm1", name: "PM1 measured", field: "pm1_0", deviceClass: "pm1", unit: "µg/m³"),
                at: 0)
        }
        if model.measuresHumidity {
            sensors += [
                Sensor(
                    object: "measured_temperature", name: "Temperature", field: "temperature_c",
                    deviceClass: "temperature", unit: "°C"),
                Sensor(
                    object: "measured_humidity", name: "Humidity", field: "relative_humidity", deviceClass: "humidity",
                    unit: "%"),
            ]
        }
        return sensors
    }

    /// The entities of `[sensor.NAME]` (`model`), read from `<prefix>/measured/NAME`.
    static func climateSensors(name: String, model: ClimateModel) -> [Sensor] {
        let object = name.lowercased().replacingOccurrences(of: "-", with: "_")
        return model.quantities.map { quantity in
            Sensor(
                object: "\(object)_\(quantity == .co2 ? "co2" : quantity.deviceClass)",
                name: "\(quantity.displayName) (\(name))", field: quantity.rawValue,
                deviceClass: quantity.deviceClass, unit: quantity.unit)
        }
    }

    var node: String { "airloc_\(deviceID)" }

    var device: [String: Any] {
        [
            "identifiers": [node], "name": "airloc \(deviceID)", "model": "airloc field logger",
            "manufacturer": "airloc", "sw_version": AirlocVersion.string,
        ]
    }

    /// (topic, retained JSON payload) for every entity.
    public var messages: [(topic: String, payload: String)] {
        var messages: [(String, String)] = []
        let measuredSensors = measured.map(Self.measuredSensors) ?? []
        let entities =
            Self.sensors.map { ($0, "state") } + measuredSensors.map { ($0, "measured") }
            + climate.flatMap { name, model in
                Self.climateSensors(name: name, model: model).map { ($0, "measured/\(name)") }
            }
        for (sensor, topic) in entities {
            var config: [String: Any] = [
                "name": sensor.name, "unique_id": "\(node)_\(sensor.object)",
                "default_entity_id": "sensor.\(node)_\(sensor.object)",
                "state_topic": "\(prefix)/\(topic)", "value_template": "{{ value_json.\(sensor.field) }}",
                "availability_topic": "\(prefix)/status", "payload_available": DeviceStatus.online.word,
                "payload_not_available": DeviceStatus.offline.word, "device": device,
                "origin": ["name": "airloc", "sw_version": AirlocVersion.string],
            ]
            if sensor.field != "category_name" { config["state_class"] = "measurement" }
            if let deviceClass = sensor.deviceClass { config["device_class"] = deviceClass }
            if let unit = sensor.unit { config["unit_of_measurement"] = unit }
            if let window = freshness[topic] { config["expire_after"] = Int(window.rounded(.up)) }
            messages.append(("\(discoveryPrefix)/sensor/\(node)/\(sensor.object)/config", Self.json(config)))
        }
        if tracker {
            let config: [String: Any] = [
                "name": "Position", "unique_id": "\(node)_position",
                "default_entity_id": "device_tracker.\(node)_position",
                "json_attributes_topic": "\(prefix)/position", "source_type": "gps",
                "availability_topic": "\(prefix)/status", "payload_available": DeviceStatus.online.word,
                "payload_not_available": DeviceStatus.offline.word, "device": device,
                "origin": ["name": "airloc", "sw_version": AirlocVersion.string],
            ]
            messages.append(("\(discoveryPrefix)/device_tracker/\(node)/position/config", Self.json(config)))
        }
        return messages
    }

    static func json(_ object: [String: Any]) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
