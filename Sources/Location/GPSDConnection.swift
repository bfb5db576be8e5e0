import CGPS
import Foundation
import Geo

/// The only code that touches libgps: one gpsd session, used by exactly one thread.
///
/// Turns libgps conventions (negative errno codes, NaN, the `set` mask, the 24 KB
/// `gps_data_t` that must stay at one address) into Swift values. Keeping all libgps
/// calls here means the next libgps API change touches one file.
final class GPSDConnection {
    private let data: UnsafeMutablePointer<gps_data_t>
    private var isOpen = false

    /// What one `gps_read` brought.
    enum ReadResult {
        case report(GPSDReport)
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

    /// Waits up to `microseconds` for data and reads one message.
    func next(waitMicroseconds microseconds: Int32) -> ReadResult {
        guard gps_waiting(data, microseconds) else {
            // gps_waiting is also false on a socket error; a dead socket shows up on the
            // next wait as readable with a failing read, handled below.
            return .idle
        }
        airloc_clear_errno()
        let count = gps_read(data, nil, 0)
        if count < 0 { return .closed }
        if count == 0 { return .idle }
        return .report(snapshot())
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

/// One gpsd report reduced to plain values (still possibly invalid: see ``fix``).
struct GPSDReport: Sendable {
    var hasPosition: Bool
    var hasMode: Bool
    var mode: FixMode
    var latitude: Double
    var longitude: Double
    var altitudeHAE: Double?
    var altitudeMSL: Double?
    var eph: Double?
    var epx: Double?
    var epy: Double?
    var speed: Double?
    var track: Double?
    var time: Date?
    var satellitesUsed: Int?
    var receivedAt = Date()

    /// A fix only when gpsd says 2D or 3D and the position is finite (never `status`,
    /// which libgps 3.22 leaves at 0 even during a good fix).
    var fix: Fix? {
        guard hasPosition, mode == .twoD || mode == .threeD,
            let coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
        else { return nil }
        var accuracy: Double?
        var accuracySource: String?
        if let eph {
            accuracy = eph
            accuracySource = "eph"
        } else if let epx, let epy {
            accuracy = (epx * epx + epy * epy).squareRoot()
            accuracySource = "epx/epy"
        }
        return Fix(
            coordinate: coordinate, source: .gps, time: time, horizontalAccuracy: accuracy,
            accuracySource: accuracySource, altitudeHAE: altitudeHAE,
            altitudeMSL: mode == .threeD ? altitudeMSL : nil, speed: speed, track: track, mode: mode,
            satellitesUsed: satellitesUsed, receivedAt: receivedAt)
    }
}
