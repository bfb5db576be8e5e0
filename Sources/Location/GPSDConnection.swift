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
    /// What was read from gpsd's socket and is not a whole line yet. The lines are read
    /// here, not by `gps_read`, so that each is looked at before libgps unpacks it
    /// (``GPSDLine``): libgps 3.22 loops for ever on some lines no gpsd sends.
    private var pending: [UInt8] = []
    /// The longest line kept; a longer one is dropped whole (gpsd's longest is ~10 kB).
    private static let messageCapacity = 65_536

    /// What one read brought.
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
        if let line = takeLine() { return .message(unpack(line)) }
        var entries = [
            pollfd(fd: Int32(data.pointee.gps_fd), events: Int16(POLLIN), revents: 0),
            pollfd(fd: stop.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        // Rounded up: a wait that ends early would find the deadline not yet come.
        let milliseconds = seconds.isFinite ? Int32(min(max(0, seconds) * 1000, 86_400_000).rounded(.up)) : -1
        let ready = Glibc.poll(&entries, 2, milliseconds)
        // A stop, or nothing within the wait (or a signal): nothing read. A dead socket
        // shows up as readable with a failing read.
        if entries[1].revents & Int16(POLLIN) != 0 || ready <= 0 || entries[0].revents == 0 { return .idle }
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(data.pointee.gps_fd, $0.baseAddress, $0.count) }
        if count == 0 { return .closed }
        if count < 0 { return errno == EAGAIN || errno == EINTR ? .idle : .closed }
        pending += chunk.prefix(count)
        if let line = takeLine() { return .message(unpack(line)) }
        // A line longer than any gpsd sends is dropped whole, up to its end.
        if pending.count > Self.messageCapacity { pending = [] }
        return .idle
    }

    /// The next whole line read, without its newline.
    private func takeLine() -> [UInt8]? {
        guard let newline = pending.firstIndex(of: 0x0A) else { return nil }
        let line = Array(pending[..<newline])
        pending.removeFirst(newline + 1)
        return line.count > Self.messageCapacity ? [] : line
    }

    /// `line` unpacked by libgps into `data`, when it is a line libgps can take.
    private func unpack(_ line: [UInt8]) -> GPSDMessage { Self.unpack(line, into: data) }

    /// What libgps makes of one JSON line from gpsd (`gps_unpack`, as `gps_read` does)
    /// outside a connection: the same decoding, for the fuzzer (`make fuzz`) and tests. A
    /// line longer than a read's buffer is cut where a read would cut it.
    static func decode(line: String) -> GPSDMessage {
        let data = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
        data.initialize(to: gps_data_t())
        defer { data.deallocate() }
        return unpack(Array(line.utf8.prefix(messageCapacity)), into: data)
    }

    /// `line` unpacked by libgps into `data` (only a line ``GPSDLine`` passes reaches it).
    private static func unpack(_ line: [UInt8], into data: UnsafeMutablePointer<gps_data_t>) -> GPSDMessage {
        guard GPSDLine.isOneObject(line) else { return .other }
        var text = line.map { CChar(bitPattern: $0) } + [0]
        _ = text.withUnsafeMutableBufferPointer { gps_unpack($0.baseAddress, data) }
        return message(String(decoding: line, as: UTF8.self), data: data.pointee)
    }

    /// The message `raw` is, with what libgps unpacked of it in `data`.
    private static func message(_ raw: String, data: gps_data_t) -> GPSDMessage {
        // libgps keeps the last TPV in `data` while other classes arrive, so the class
        // decides whether `data` holds a new position report.
        switch GPSDMessage.classOf(raw) {
        case "TPV": return .position(snapshot(data))
        case "SKY": return .satellites(used: data.satellites_used > 0 ? Int(data.satellites_used) : nil)
        default: return GPSDMessage(json: raw)
        }
    }

    private static func snapshot(_ d: gps_data_t) -> GPSDReport {
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
