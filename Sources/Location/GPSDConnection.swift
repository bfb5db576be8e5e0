import CGPS
import Foundation
import Geo
import Platform

/// The only code that touches libgps: one gpsd session, used by exactly one thread.
///
/// Turns libgps conventions (negative errno codes, NaN, the `set` mask, the 24 KB
/// `gps_data_t` that must stay at one address) into Swift values. Keeping all libgps
/// calls here means the next libgps API change touches one file.
final class GPSDConnection {
    private let data: UnsafeMutablePointer<gps_data_t>
    private var isOpen = false
    /// The raw text of the last message: libgps does not unpack POLL and DEVICES into
    /// anything we can use, so those are read from the JSON itself.
    private let message: UnsafeMutablePointer<CChar>
    private static let messageCapacity = 65_536

    /// What one `gps_read` brought.
    enum ReadResult {
        case message(GPSDMessage)
        /// Nothing arrived within the wait.
        case idle
        /// gpsd closed the connection (it died or was restarted).
        case closed
    }

    /// Connects to gpsd. Throws ``GPSDError/notReachable(host:port:reason:)``.
    init(host: String, port: Int) throws(GPSDError) {
        data = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
        data.initialize(to: gps_data_t())
        message = UnsafeMutablePointer<CChar>.allocate(capacity: Self.messageCapacity)
        message.initialize(repeating: 0, count: Self.messageCapacity)
        // All stored properties are set: if we throw below, deinit runs and frees `data`
        // (and must not close a connection that never opened).
        airloc_clear_errno()
        let result = gps_open(host, String(port), data)
        if result != 0 {
            let code = airloc_errno()
            let reason = code < 0 ? String(cString: gps_errstr(code)) : String(cString: strerror(code))
            throw .notReachable(host: host, port: port, reason: reason)
        }
        isOpen = true
    }

    deinit {
        if isOpen { gps_close(data) }
        data.deinitialize(count: 1)
        data.deallocate()
        message.deallocate()
    }

    /// Asks gpsd to stream JSON reports (TPV, SKY, ...).
    func watch() -> Bool {
        gps_stream(data, UInt32(WATCH_ENABLE | WATCH_JSON), nil) == 0
    }

    /// Asks gpsd for the latest fix of every active device (`?POLL;`): the answer comes at
    /// once, so a client need not wait up to a second for the next report.
    func poll() -> Bool {
        airloc_gps_send(data, "?POLL;") == 0
    }

    /// Waits up to `seconds` for data (`.infinity`: no limit), or until `stop` is set, and
    /// reads one message.
    func next(wait seconds: Double, stop: StopSignal) -> ReadResult {
        // libgps may hold a message it read already: gps_waiting looks there first.
        if !gps_waiting(data, 0) {
            var entries = [
                pollfd(fd: Int32(data.pointee.gps_fd), events: Int16(POLLIN), revents: 0),
                pollfd(fd: stop.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            // Rounded up: a wait that ends early would find the deadline not yet come.
            let milliseconds = seconds.isFinite ? Int32(min(max(0, seconds) * 1000, 86_400_000).rounded(.up)) : -1
            let ready = Glibc.poll(&entries, 2, milliseconds)
            // A stop, or nothing within the wait (or a signal): nothing read. A dead socket
            // shows up as readable with a failing read, handled below.
            if entries[1].revents & Int16(POLLIN) != 0 || ready <= 0 || entries[0].revents == 0 { return .idle }
        }
        airloc_clear_errno()
        message[0] = 0
        let count = gps_read(data, message, Int32(Self.messageCapacity))
        if count < 0 { return .closed }
        if count == 0 { return .idle }
        let raw = String(cString: message)
        // libgps keeps the last TPV in `data` while other classes arrive, so the class
        // decides whether `data` holds a new position report.
        switch GPSDMessage.classOf(raw) {
        case "TPV": return .message(.position(snapshot()))
        case "SKY":
            return .message(
                .satellites(used: data.pointee.satellites_used > 0 ? Int(data.pointee.satellites_used) : nil))
        default: return .message(GPSDMessage(json: raw))
        }
    }

    private func snapshot() -> GPSDReport {
        let d = data.pointee
        let fix = d.fix
        func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
        var time: Date?
        if d.set & UInt64(TIME_SET) != 0 || fix.time.tv_sec > 0, fix.time.tv_sec > 0 {
            time = Date(timeIntervalSince1970: Double(fix.time.tv_sec) + Double(fix.time.tv_nsec) / 1e9)
        }
        return GPSDReport(
            hasPosition: d.set & UInt64(LATLON_SET) != 0,
            hasMode: d.set & UInt64(MODE_SET) != 0,
            mode: FixMode(rawValue: Int(fix.mode)) ?? .notSeen,
            latitude: fix.latitude, longitude: fix.longitude,
            altitudeHAE: finite(fix.altHAE), altitudeMSL: finite(fix.altMSL),
            eph: finite(fix.eph), epx: finite(fix.epx), epy: finite(fix.epy),
            speed: finite(fix.speed), track: finite(fix.track), time: time,
            satellitesUsed: d.satellites_used > 0 ? Int(d.satellites_used) : nil)
    }
}
