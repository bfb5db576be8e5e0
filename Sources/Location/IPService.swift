import Foundation
import Geo
import Platform
import Web

/// The keyless IP-geolocation services airloc can ask, each with its own endpoint and
/// answer format (reference: postal-and-ip.md).
///
/// Contract: ``parse(_:)`` turns a 2xx body into a located answer or a reason a person
/// can read — a service's own failure flag (`success:false`, `status:"fail"`,
/// `error:true`, `bogon`) and text where numbers belong ("Sign up to access") are
/// failures, never a position at 0,0.
public enum IPService: String, Sendable, CaseIterable {
    case ipwhois = "ipwho.is"
    case ipinfo = "ipinfo.io"
    case ipapi = "ipapi.co"
    case ipAPICom = "ip-api.com"

    /// The public endpoint. Only ip-api.com lacks keyless HTTPS.
    public var defaultBaseURL: String {
        switch self {
        case .ipwhois: return "https://ipwho.is"
        case .ipinfo: return "https://ipinfo.io"
        case .ipapi: return "https://ipapi.co"
        case .ipAPICom: return "http://ip-api.com"
        }
    }

    /// The path of "where is the address this request comes from".
    public var path: String {
        switch self {
        case .ipwhois: return "/"
        case .ipinfo: return "/json"
        case .ipapi, .ipAPICom: return "/json/"
        }
    }

    /// What a service answered, reduced to what airloc uses.
    public struct Answer: Sendable, Equatable {
        /// The position the service gives (city level).
        public var coordinate: Coordinate
        /// Its city, when it says.
        public var city: String?
        /// Its region.
        public var region: String?
        /// ISO 3166 alpha-2.
        public var countryCode: String?
        /// Its IANA time zone.
        public var timezone: String?
    }

    /// The service's answer in `body`, or why it is not one.
    public func parse(_ body: Data) throws(IPLocationError) -> Answer {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw .unusable(service: rawValue, reason: body.isEmpty ? "empty answer" : "the answer is not JSON")
        }
        // Service text is made plain where it enters (no control or escape byte).
        func text(_ key: String) -> String? {
            guard let value = (object[key] as? String).map(TerminalText.plain), !value.isEmpty else { return nil }
            return value
        }
        let latitude: Any?
        let longitude: Any?
        var answer = (city: text("city"), region: text("region"), country: text("country_code"), zone: text("timezone"))
        switch self {
        case .ipwhois:
            if (object["success"] as? Bool) == false {
                throw .refused(service: rawValue, message: text("message") ?? "success: false")
            }
            latitude = object["latitude"]
            longitude = object["longitude"]
            answer.zone = ((object["timezone"] as? [String: Any])?["id"] as? String).map(TerminalText.plain)
        case .ipinfo:
            if (object["bogon"] as? Bool) == true {
                throw .refused(service: rawValue, message: "the address it saw is private (bogon)")
            }
            let parts = (text("loc") ?? "").split(separator: ",").map(String.init)
            latitude = parts.count == 2 ? parts[0] : object["loc"]
            longitude = parts.count == 2 ? parts[1] : nil
            answer.country = text("country")
        case .ipapi:
            if (object["error"] as? Bool) == true {
                let reason = [text("reason"), text("message")].compactMap { $0 }.joined(separator: ": ")
                throw .refused(service: rawValue, message: reason.isEmpty ? "error: true" : reason)
            }
            latitude = object["latitude"]
            longitude = object["longitude"]
        case .ipAPICom:
            if let status = text("status"), status != "success" {
                throw .refused(service: rawValue, message: text("message") ?? "status: \(status)")
            }
            latitude = object["lat"]
            longitude = object["lon"]
            answer.region = text("regionName")
            answer.country = text("countryCode")
        }
        let lat = try degrees(latitude, "latitude")
        let lon = try degrees(longitude, "longitude")
        guard let coordinate = try? Coordinate(latitude: lat, longitude: lon) else {
            throw .unusable(service: rawValue, reason: "position \(lat), \(lon) is out of range")
        }
        return Answer(
            coordinate: coordinate, city: answer.city, region: answer.region,
            countryCode: answer.country?.uppercased(), timezone: answer.zone)
    }

    /// A number, or a numeric string ("52.52"); anything else is named in the error, cut
    /// short so a hostile body cannot flood the terminal.
    private func degrees(_ value: Any?, _ field: String) throws(IPLocationError) -> Double {
        if let number = JSONNumber.double(value) { return number }
        if let string = value as? String, let number = Double(string.trimmingCharacters(in: .whitespaces)),
            number.isFinite
        {
            return number
        }
        guard let value else { throw .unusable(service: rawValue, reason: "no \(field) in the answer") }
        let shown = String(String(describing: value).prefix(40))
        throw .unusable(service: rawValue, reason: "\(field) is not a number ('\(shown)')")
    }
}

/// Why IP geolocation gave no position.
public enum IPLocationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request failed (unreachable, timeout, 429 with the service's text, 5xx...).
    case web(WebError)
    /// The service answered but declined (its own failure flag and message).
    case refused(service: String, message: String)
    /// The answer cannot be used (not JSON, text where a number belongs).
    case unusable(service: String, reason: String)

    /// What went wrong, naming the service.
    public var description: String {
        switch self {
        case .web(let error): return error.description
        case .refused(let service, let message): return "\(service) gave no location: \(message)"
        case .unusable(let service, let reason): return "\(service) sent an answer airloc cannot use (\(reason))"
        }
    }

    /// True when asking again later may work.
    public var isRetryable: Bool {
        if case .web(let error) = self { return error.isRetryable }
        return false
    }
}
