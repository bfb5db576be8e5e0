import AirQuality
import Airloc
import Foundation
import Geo
import Logbook
import Platform
import Web

/// The logbook's outbox, drained into an MQTT broker: every row to `<prefix>/history`
/// (QoS 1, in order), the latest live reading and position to the retained topics Home
/// Assistant reads, availability on `<prefix>/status`.
///
/// Contract:
/// - The logbook is the truth: a row is marked sent only when the broker's PUBACK for it
///   arrived; a reconnect or a restart publishes again whatever was not acknowledged
///   (at least once: subscribers drop duplicates by `id`). At most `inFlight` rows are
///   unacknowledged at a time.
/// - On every (re)connection: `online` (retained) on the status topic, the discovery
///   configs, a subscription to Home Assistant's status (its `online` → discovery again).
///   The will, and ``close()``, say `offline`.
/// - What leaves the device is as coarse as `[mqtt] position` says: `exact`, `coarse`
///   (the `[privacy] outbound-precision` grid, the accuracy no better than the grid), or
///   `none` (no track rows, no device tracker, air rows without coordinates or place
///   name).
/// - A row whose content changes after it was published (back-filled, settled after
///   pending, re-stamped by GPS time) is published again under the same `id`: the last
///   message for an id is the row as the logbook holds it. An acknowledgement of an
///   older revision does not mark the newer one sent.
/// - Back-filled history goes to the history topic only (Home Assistant would record it
///   as "now"); `state` follows the newest live (or cached) reading younger than two
///   hours, never an older one published after it; `position` is sent when it changes
///   and is younger than two minutes. Both are retained, and sent again on every
///   (re)connection, for a broker that lost its retained messages.
public struct FleetPublisher: Sendable {
    public let logbook: Logbook
    public let connection: MQTTConnection
    public let settings: Settings
    public let deviceID: String
    public var time: any TimeSource
    public var notify: @Sendable (String) -> Void

    /// Message id → the row and revision it carries.
    private var inFlight: [Int32: (key: String, revision: Int64)] = [:]
    /// The retained state and position last published, and the hour of that state.
    private var retained: (state: String?, position: String?, stateHour: Date?) = (nil, nil, nil)
    /// The retained measured values last published (`<prefix>/measured`).
    private var retainedMeasured: String?
    private var greetedConnection = 0
    private var reportedError: String?
    /// Rows the broker acknowledged during this run.
    public private(set) var acknowledged = 0
    /// The end-to-end acknowledgement, with `[mqtt] end-to-end = collector`.
    public var collector: CollectorLink?

    public init(
        logbook: Logbook, connection: MQTTConnection, settings: Settings, deviceID: String,
        time: any TimeSource = SystemTime(), notify: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.logbook = logbook
        self.connection = connection
        self.settings = settings
        self.deviceID = deviceID
        self.time = time
        self.notify = notify
    }

    public var prefix: String { Self.prefix(settings: settings, deviceID: deviceID) }

    public static func prefix(settings: Settings, deviceID: String) -> String {
        settings.mqtt.topicPrefix ?? "airloc/\(deviceID)"
    }

    var discovery: HomeAssistantDiscovery {
        HomeAssistantDiscovery(
            deviceID: deviceID, prefix: prefix, discoveryPrefix: settings.mqtt.discoveryPrefix,
            tracker: settings.mqtt.position != .none, measured: settings.sensor.model)
    }

    /// Drains the outbox until the task is cancelled (nil), or until the broker refuses the
    /// credentials (the reason: a configuration matter, retrying cannot help).
    public mutating func run() async -> String? {
        while !Task.isCancelled {
            step()
            if connection.credentialsRefused { return connection.lastError }
            // Acknowledgements due (a backlog draining, a row just sent): look again soon,
            // so the window refills at the broker's pace; nothing in flight: rarely.
            try? await time.sleep(for: .milliseconds(inFlight.isEmpty ? 200 : 5))
        }
        return nil
    }

    /// One round: greet a new connection, settle acknowledgements, fill the window.
    public mutating func step() {
        let acks = connection.takeAcknowledged()
        let done = acks.compactMap { inFlight.removeValue(forKey: $0) }
        if !done.isEmpty {
            do {
                try logbook.markSent(done)
                acknowledged += done.count
            } catch { notify("cannot mark rows sent: \(error)") }
        }
        if let error = connection.lastError, error != reportedError {
            reportedError = error
            notify(connection.credentialsRefused ? error : "\(error); retrying (the rows wait in the logbook)")
        }
        guard connection.isConnected else { return }
        let connections = connection.connectionCount
        if connections != greetedConnection {
            greetedConnection = connections
            reportedError = nil
            greet()
            // Whatever was in flight may be lost with the old connection: publish it again.
            inFlight.removeAll()
        }
        let now = time.now
        for message in connection.takeMessages() {
            if collector?.received(message, at: now) == true { continue }
            if message.topic == "\(settings.mqtt.discoveryPrefix)/status" && message.payload == "online" {
                publishDiscovery()
            }
        }
        fill()
        collector?.tick(at: now)
    }

    private mutating func greet() {
        _ = try? connection.publish("\(prefix)/status", "online", retain: true)
        if settings.mqtt.discovery {
            publishDiscovery()
            connection.subscribe("\(settings.mqtt.discoveryPrefix)/status")
        }
        // A broker that lost its retained messages (restarted without persistence) would
        // leave Home Assistant blank until the next reading.
        if let state = retained.state { _ = try? connection.publish("\(prefix)/state", state, retain: true) }
        if let measured = retainedMeasured {
            _ = try? connection.publish("\(prefix)/measured", measured, retain: true)
        }
        if let position = retained.position {
            _ = try? connection.publish("\(prefix)/position", position, retain: true)
        }
        let (now, connection) = (time.now, self.connection)
        collector?.greet(connection, at: now)
        notify("connected to the broker; publishing to \(prefix)")
    }

    private func publishDiscovery() {
        guard settings.mqtt.discovery else { return }
        for message in discovery.messages { _ = try? connection.publish(message.topic, message.payload, retain: true) }
    }

    private mutating func fill() {
        let room = connection.options.inFlight - inFlight.count
        guard room > 0 else { return }
        let entries: [Logbook.OutboxEntry]
        // Row key → the revision in flight (the newest, when an older one is still unacknowledged).
        let published = Dictionary(inFlight.values.map { ($0.key, $0.revision) }, uniquingKeysWith: max)
        do { entries = try logbook.unsent(excluding: published, limit: room) } catch {
            notify("cannot read the outbox: \(error)")
            return
        }
        var skipped: [(key: String, revision: Int64)] = []
        let now = time.date
        for entry in entries {
            guard var line = outbound(entry.row) else {
                skipped.append((entry.key, entry.revision))
                continue
            }
            if let collector { line = collector.decorated(line, revision: entry.revision) }
            do {
                let mid = try connection.publish("\(prefix)/history", line)
                let now = time.now
                collector?.published(at: now)
                // An older revision still in flight: its acknowledgement settles nothing.
                if published[entry.key] != nil { inFlight = inFlight.filter { $0.value.key != entry.key } }
                inFlight[mid] = (entry.key, entry.revision)
            } catch {
                notify("\(error)")
                return
            }
            publishState(entry.row, now: now)
        }
        // Rows withheld by `[mqtt] position = none` are done with.
        try? logbook.markSent(skipped, withheld: true)
    }

    /// The row as it may leave the device, or nil when it may not.
    func outbound(_ row: Logbook.OutboxRow) -> String? {
        let precision = settings.outboundPrecision
        switch (row, settings.mqtt.position) {
        case (.track, .none): return nil
        case (.track(let point), .coarse):
            return Logbook.OutboxRow.track(coarse(point)).json
        case (.air(var record), .coarse):
            record.coordinate = record.coordinate.rounded(toDegrees: precision)
            return Logbook.OutboxRow.air(record).json
        case (.air, .none), (.sensor, .none):
            return row.json(position: false)
        case (.sensor(var reading), .coarse):
            reading.coordinate = reading.coordinate?.rounded(toDegrees: precision)
            return Logbook.OutboxRow.sensor(reading).json
        default: return row.json
        }
    }

    /// A track point as `coarse` publishes it: on the `[privacy] outbound-precision` grid,
    /// claiming no better accuracy than half a grid cell, without its altitude.
    func coarse(_ point: TrackPoint) -> TrackPoint {
        let precision = settings.outboundPrecision
        var copy = point
        copy.coordinate = point.coordinate.rounded(toDegrees: precision)
        copy.accuracy = max(point.accuracy ?? 0, precision * 111_195 / 2)
        copy.altitude = nil
        return copy
    }

    /// Live rows also update what Home Assistant shows now.
    private mutating func publishState(_ row: Logbook.OutboxRow, now: Date) {
        switch row {
        case .air(let record)
        where [.live, .cached].contains(record.source) && record.values.usAQI != nil
            && now.timeIntervalSince(record.hour) < 7200 && record.hour >= (retained.stateHour ?? record.hour):
            let payload = HomeAssistantDiscovery.json(Self.state(record))
            retained.state = payload
            retained.stateHour = record.hour
            _ = try? connection.publish("\(prefix)/state", payload, retain: true)
        case .track(let point) where settings.mqtt.position != .none && now.timeIntervalSince(point.time) < 120:
            let shown = settings.mqtt.position == .exact ? point : coarse(point)
            let attributes: [String: Any] = [
                "latitude": shown.coordinate.latitude, "longitude": shown.coordinate.longitude,
                "gps_accuracy": (shown.accuracy ?? 0).rounded(),
            ]
            let payload = HomeAssistantDiscovery.json(attributes)
            // A device standing still (or a coarse grid cell) says it once.
            guard payload != retained.position else { return }
            retained.position = payload
            _ = try? connection.publish("\(prefix)/position", payload, retain: true)
        case .sensor(let reading) where now.timeIntervalSince(reading.time) < max(600, 2 * settings.sensor.interval):
            let payload = HomeAssistantDiscovery.json(Self.measured(reading))
            retainedMeasured = payload
            _ = try? connection.publish("\(prefix)/measured", payload, retain: true)
        default: break
        }
    }

    /// What `<prefix>/measured` says of a sensor reading: the values Home Assistant's
    /// measured entities read, and when and with what they were made.
    static func measured(_ reading: SensorRecord) -> [String: Any] {
        let v = reading.values
        var state: [String: Any] = [
            "time": UTCTime.iso8601Seconds(reading.time), "model": reading.model, "pm2_5": v.pm2_5, "pm10": v.pm10,
            "samples": reading.samples, "flags": reading.flags,
        ]
        state["pm1_0"] = v.pm1_0
        state["pm4_0"] = v.pm4_0
        state["temperature_c"] = v.temperatureC
        state["relative_humidity"] = v.relativeHumidity
        state["us_aqi"] = reading.usAQI
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

    /// On a clean stop, after the logger wrote its last row: publishes what is still
    /// unsent while the broker is connected and acknowledging (it gives up after
    /// `patience` seconds without an acknowledgement: the rows wait in the logbook).
    public mutating func finish(patience: Double = 5) async {
        var lastProgress = time.now
        var done = acknowledged
        while connection.isConnected && time.now - lastProgress < .seconds(patience) {
            step()
            if inFlight.isEmpty, (try? logbook.unsentCount()) == 0 { return }
            if acknowledged != done {
                done = acknowledged
                lastProgress = time.now
            }
            try? await time.sleep(for: .milliseconds(5))
        }
    }

    /// `offline` on the status topic, a clean disconnect.
    public func close() {
        connection.close(last: ("\(prefix)/status", "offline"))
    }
}
