import Foundation
import Web

/// What an upload sends: an HTTP request, or an MQTT message (owntracks-mqtt).
public enum Outgoing: Sendable, Equatable {
    case http(HTTPRequest)
    case mqtt(topic: String, payload: String)
}

/// The servers of tracks: OwnTracks (the Recorder, over MQTT or HTTP) and Traccar (the
/// OsmAnd protocol), one position per message, as their own documentation has it.
///
/// Contract: OwnTracks gets `_type: location` with `lat`, `lon`, `tst` (epoch s), `acc`,
/// `alt`, `vel` (km/h), `cog`, `tid`, and the air values as extra keys (the Recorder
/// keeps them); Traccar gets `id`, `lat`, `lon`, `timestamp` (epoch s), `speed` in
/// knots, `bearing`, `altitude`, `accuracy`, and the air values as attributes. A
/// position withheld (`position = none`) sends nothing.
enum PositionFormats {
    /// The two letters OwnTracks shows on the map: the device's first two.
    /// OwnTracks' two-letter tracker id: the device's first and last letter or digit, so
    /// that `pi-4` and `pi-5` are told apart on the map (`p4`, `p5`).
    static func trackerID(_ device: String) -> String {
        let letters = device.filter { $0.isLetter || $0.isNumber }
        guard let first = letters.first, let last = letters.last else { return "al" }
        return letters.count == 1 ? String(first) : String([first, last])
    }

    static func ownTracks(_ item: UploadItem, plan: UploadPlan) -> [String: Any]? {
        guard case .position(let point, _, _) = item.row, let place = item.place else { return nil }
        var location: [String: Any] = [
            "_type": "location", "lat": place.latitude, "lon": place.longitude,
            "tst": Int(point.time.timeIntervalSince1970.rounded(.down)),
            "tid": trackerID(plan.device.isEmpty ? plan.id : plan.device),
        ]
        if let accuracy = item.accuracy { location["acc"] = Int(accuracy.rounded()) }
        if let altitude = item.altitude { location["alt"] = Int(altitude.rounded()) }
        if let speed = point.speed { location["vel"] = Int((speed * 3.6).rounded()) }
        if let course = point.course { location["cog"] = Int(course.rounded()) }
        for (name, value) in item.airValues { location[name] = Double(value) ?? value }
        return location
    }

    static func json(_ object: [String: Any]) -> String {
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func outgoing(_ items: [UploadItem], plan: UploadPlan) -> [Outgoing] {
        items.compactMap { item in
            switch plan.type {
            case .owntracksMQTT:
                return ownTracks(item, plan: plan).map {
                    .mqtt(topic: "owntracks/\(plan.user)/\(plan.device)", payload: json($0))
                }
            case .owntracksHTTP:
                guard let location = ownTracks(item, plan: plan), let url = URL(string: plan.url) else { return nil }
                let basic = Data("\(plan.user):\(plan.secret ?? "")".utf8).base64EncodedString()
                return .http(
                    HTTPRequest(
                        url: url,
                        headers: [
                            "Content-Type: application/json", "Authorization: Basic \(basic)",
                            "X-Limit-U: \(plan.user)", "X-Limit-D: \(plan.device)",
                        ], body: Data(json(location).utf8)))
            case .traccar:
                return traccar(item, plan: plan)
            case .sensorCommunity, .openSenseMap:
                return nil
            }
        }
    }

    static func traccar(_ item: UploadItem, plan: UploadPlan) -> Outgoing? {
        guard case .position(let point, _, _) = item.row, let place = item.place, let url = URL(string: plan.url) else {
            return nil
        }
        var fields: [(String, String)] = [
            ("id", plan.id), ("lat", UploadItem.number(place.latitude)), ("lon", UploadItem.number(place.longitude)),
            ("timestamp", String(Int(point.time.timeIntervalSince1970.rounded(.down)))),
        ]
        // OsmAnd's speed is in knots.
        if let speed = point.speed { fields.append(("speed", UploadItem.number(speed * 3600 / 1852))) }
        if let course = point.course { fields.append(("bearing", UploadItem.number(course))) }
        if let altitude = item.altitude { fields.append(("altitude", UploadItem.number(altitude))) }
        if let accuracy = item.accuracy { fields.append(("accuracy", UploadItem.number(accuracy))) }
        fields += item.airValues
        return .http(
            HTTPRequest(
                url: url, headers: ["Content-Type: application/x-www-form-urlencoded"],
                body: Data(form(fields).utf8)))
    }

    /// `application/x-www-form-urlencoded`.
    static func form(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }

    /// A request that sends no position, for `doctor`: Traccar's status report (the id
    /// alone: known or not), OwnTracks' endpoint with the credentials.
    static func probe(_ plan: UploadPlan) -> Outgoing? {
        guard let url = URL(string: plan.url) else { return nil }
        switch plan.type {
        case .traccar:
            return .http(
                HTTPRequest(
                    url: url, headers: ["Content-Type: application/x-www-form-urlencoded"],
                    body: Data(form([("id", plan.id)]).utf8)))
        case .owntracksHTTP:
            let basic = Data("\(plan.user):\(plan.secret ?? "")".utf8).base64EncodedString()
            return .http(HTTPRequest(url: url, headers: ["Authorization: Basic \(basic)"]))
        default: return nil
        }
    }
}
