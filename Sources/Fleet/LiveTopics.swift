import AirQuality
import FleetWire
import Foundation
import Geo
import Logbook
import Settings

/// What Home Assistant shows now, from the rows the publisher sends: the retained
/// `<prefix>/state` (air), `<prefix>/position` and `<prefix>/measured[/NAME]` topics. A
/// pure value: it says what to publish and remembers it, so that a new connection can
/// publish it all again (a broker restarted without persistence loses retained messages).
///
/// Contract:
/// - `state` follows the newest live (or cached) air reading with a US AQI younger than
///   two hours, never an older one published after it.
/// - `position` is sent when it changes and is younger than two minutes, as `[mqtt]
///   position` allows (`coarse`: the `[privacy] outbound-precision` grid; `none`: never).
/// - A sensor's measured topic follows its reading younger than max(600 s, 2 × its
///   interval).
/// - Back-filled history is never shown as now: only these rules decide.
struct LiveTopics: Sendable {
    /// A retained message to publish.
    struct Message: Sendable, Equatable {
        let topic: String
        let payload: String
    }

    /// The device's topics' prefix.
    let prefix: String
    /// `[mqtt] position`.
    let position: MQTTSettings.Position
    /// `[privacy] outbound-precision`, the coarse grid.
    let grid: Double
    /// Seconds between a sensor's readings: the particulate sensor's, and each
    /// `[sensor.NAME]`'s by name.
    let intervals: (particulate: Double, climate: [String: Double])

    private var state: String?
    private var stateHour: Date?
    private var shownPosition: String?
    private var measured: [String: String] = [:]

    init(prefix: String, position: MQTTSettings.Position, grid: Double, intervals: (Double, [String: Double])) {
        self.prefix = prefix
        self.position = position
        self.grid = grid
        self.intervals = (intervals.0, intervals.1)
    }

    /// Everything shown so far, to publish again on a new connection: state, measured
    /// (by topic), then position.
    var retained: [Message] {
        var messages: [Message] = []
        if let state { messages.append(Message(topic: "\(prefix)/state", payload: state)) }
        for (topic, payload) in measured.sorted(by: { $0.key < $1.key }) {
            messages.append(Message(topic: topic, payload: payload))
        }
        if let shownPosition { messages.append(Message(topic: "\(prefix)/position", payload: shownPosition)) }
        return messages
    }

    /// A row was published at `now`: what it changes of what is shown, if anything.
    mutating func published(_ row: Logbook.OutboxRow, now: Date) -> Message? {
        switch row {
        case .air(let record)
        where [.live, .cached].contains(record.source) && record.values.usAQI != nil
            && now.timeIntervalSince(record.hour) < 7200 && record.hour >= (stateHour ?? record.hour):
            let payload = HomeAssistantDiscovery.json(Self.state(record))
            state = payload
            stateHour = record.hour
            return Message(topic: "\(prefix)/state", payload: payload)
        case .track(let point) where position != .none && now.timeIntervalSince(point.time) < 120:
            let shown = position == .exact ? point : point.coarse(grid: grid)
            let attributes: [String: Any] = [
                "latitude": shown.coordinate.latitude, "longitude": shown.coordinate.longitude,
                "gps_accuracy": (shown.accuracy ?? 0).rounded(),
            ]
            let payload = HomeAssistantDiscovery.json(attributes)
            // A device standing still (or a coarse grid cell) says it once.
            guard payload != shownPosition else { return nil }
            shownPosition = payload
            return Message(topic: "\(prefix)/position", payload: payload)
        case .sensor(let reading) where now.timeIntervalSince(reading.time) < max(600, 2 * interval(of: reading)):
            let message = Message(
                topic: Self.measuredTopic(reading, prefix: prefix),
                payload: HomeAssistantDiscovery.json(Self.measured(reading)))
            measured[message.topic] = message.payload
            return message
        default: return nil
        }
    }

    /// The reading interval of the sensor that made `reading`.
    private func interval(of reading: SensorRecord) -> Double {
        guard reading.particulate == nil else { return intervals.particulate }
        return intervals.climate[reading.name] ?? intervals.particulate
    }

    /// The retained topic of a sensor's latest reading: `<prefix>/measured` for the
    /// particulate sensor, `<prefix>/measured/NAME` for a `[sensor.NAME]` one.
    static func measuredTopic(_ reading: SensorRecord, prefix: String) -> String {
        reading.particulate != nil ? "\(prefix)/measured" : "\(prefix)/measured/\(reading.name)"
    }

    /// What a sensor's measured topic says of its reading: the values Home Assistant's
    /// measured entities read, and when and with what they were made.
    static func measured(_ reading: SensorRecord) -> [String: Any] {
        var state: [String: Any] = [
            "time": UTCTime.iso8601Seconds(reading.time), "model": reading.model, "samples": reading.samples,
            "flags": reading.flags,
        ]
        for (name, value) in reading.measuredValues { state[name] = value }
        if reading.particulate != nil { state["us_aqi"] = reading.usAQI } else { state["name"] = reading.name }
        return state
    }

    /// What `<prefix>/state` says of an air reading; the category's name as the EPA
    /// writes it ("Unhealthy for Sensitive Groups", as the report prints it).
    static func state(_ record: AirRecord) -> [String: Any] {
        var state: [String: Any] = ["time": UTCTime.iso8601Seconds(record.hour)]
        state["us_aqi"] = record.values.usAQI
        state["category"] = record.values.category
        state["category_name"] = record.values.category.flatMap(AQICategory.init(rawValue:))?.name
        for (name, value) in record.values.pollutants { state[name] = value }
        return state
    }
}
