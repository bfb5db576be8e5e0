import Foundation
import Geo

/// One message from gpsd, in the terms airloc uses.
///
/// TPV reports come through libgps' own decoding (``GPSDConnection``); POLL, DEVICES and
/// ERROR, which libgps 3.22 does not unpack into anything usable, are read from the JSON
/// line here — a pure function of the text, so it is tested without a daemon.
enum GPSDMessage: Sendable {
    /// A TPV report.
    case position(GPSDReport)
    /// A SKY report: satellites used in the solution, when the receiver says.
    case satellites(used: Int?)
    /// The answer to `?POLL;`: the latest TPV of the first active device (nil when no
    /// device is active yet), and gpsd's own clock when it answered.
    case poll(GPSDReport?, at: Date?)
    /// The devices gpsd has open.
    case devices([GPSDDevice])
    /// gpsd refused a command.
    case error(String)
    /// VERSION, WATCH and the rest.
    case other

    /// The `class` member of a gpsd JSON line, read without parsing the whole object.
    static func classOf(_ json: String) -> String? {
        guard let range = json.range(of: "\"class\":\"") else { return nil }
        let rest = json[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    init(json: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            self = .other
            return
        }
        switch object["class"] as? String {
        case "POLL":
            let tpv = (object["tpv"] as? [[String: Any]])?.first
            self = .poll(tpv.map(GPSDReport.init(tpv:)), at: (object["time"] as? String).flatMap(UTCTime.parse))
        case "DEVICES":
            let list = object["devices"] as? [[String: Any]] ?? []
            self = .devices(list.compactMap(GPSDDevice.init(json:)))
        case "ERROR":
            self = .error(object["message"] as? String ?? "unknown error")
        default:
            self = .other
        }
    }
}

/// A receiver gpsd has open (from its DEVICES message), for `airloc doctor`.
public struct GPSDDevice: Sendable, Equatable {
    /// The device node, e.g. /dev/ttyACM0 or /dev/gps0.
    public var path: String
    /// gpsd's driver name ("u-blox", "NMEA0183"), when it has identified the receiver.
    public var driver: String?
    /// When gpsd activated it.
    public var activated: String?

    init?(json: [String: Any]) {
        guard let path = json["path"] as? String else { return nil }
        self.path = path
        driver = json["driver"] as? String
        activated = json["activated"] as? String
    }

    /// A receiver gpsd has open.
    public init(path: String, driver: String?, activated: String?) {
        self.path = path
        self.driver = driver
        self.activated = activated
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

extension GPSDReport {
    /// A TPV object from a POLL answer, read the way libgps reads one from the stream.
    init(tpv: [String: Any]) {
        func number(_ key: String) -> Double? {
            (tpv[key] as? NSNumber).map { $0.doubleValue }.flatMap { $0.isFinite ? $0 : nil }
        }
        let latitude = number("lat")
        let longitude = number("lon")
        self.init(
            hasPosition: latitude != nil && longitude != nil, hasMode: tpv["mode"] != nil,
            mode: FixMode(rawValue: (tpv["mode"] as? NSNumber)?.intValue ?? 0) ?? .notSeen,
            latitude: latitude ?? .nan, longitude: longitude ?? .nan,
            altitudeHAE: number("altHAE"), altitudeMSL: number("altMSL"),
            eph: number("eph"), epx: number("epx"), epy: number("epy"),
            speed: number("speed"), track: number("track"),
            time: (tpv["time"] as? String).flatMap(UTCTime.parse), satellitesUsed: nil)
    }
}

/// What airloc makes of one JSON line from gpsd, as a value outside a connection: the
/// fixes libgps' unpacking (what a read does) and airloc's own reading of a POLL give.
/// For the fuzzer (`make fuzz`, Sources/FuzzTargets) and tests; a line libgps cannot take
/// (``GPSDLine``) gives none.
package enum GPSDReading {
    /// The fixes `line` gives (none: it is no position report, or not one gpsd sends).
    package static func fixes(in line: String) -> [Fix] {
        [GPSDConnection.decode(line: line), GPSDMessage(json: line)].compactMap { message in
            switch message {
            case .position(let report): return report.fix
            case .poll(let report, _): return report?.fix
            default: return nil
            }
        }
    }
}
