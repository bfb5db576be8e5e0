import Airloc
import Foundation
import Gazetteer
import Geo
import Location

/// `airloc locate` for a person: the coordinate with its accuracy, what it is based on
/// and how old it is, the motion when known, and the nearest place.
public struct LocationText {
    /// Where it is printed.
    public var console: Console

    /// The text for `console`.
    public init(console: Console) { self.console = console }

    /// `locate`'s text for `resolution`.
    public func render(_ resolution: LocationSession.Location, place: NearestPlace?, now: Date) -> String {
        let fix = resolution.fix
        var lines = [console.bold("\(fix.coordinate)") + accuracyText(fix)]
        var source = "  Source: \(resolution.provider)"
        switch fix.source {
        case .gps:
            source += " — GPS \(fix.mode?.description ?? "fix")"
            if let satellites = fix.satellitesUsed { source += ", \(satellites) satellites" }
        case .ip: source += " — IP address lookup, city level at best"
        case .manual: source += " — \(fix.accuracySource ?? "configured"), not sensed"
        }
        if let age = fix.age(at: now), fix.source != .manual { source += ", \(formatAge(age)) old" }
        if resolution.accuracy == .reduced && fix.source != .manual { source += " (approximate: reduced accuracy)" }
        lines.append(source)
        var motion: [String] = []
        if let msl = fix.altitudeMSL {
            motion.append(String(format: "altitude %.1f m above sea level", msl))
        } else if let hae = fix.altitudeHAE {
            motion.append(String(format: "altitude %.1f m (ellipsoid)", hae))
        }
        if let speed = fix.speed { motion.append(String(format: "speed %.1f m/s", speed)) }
        if let track = fix.track { motion.append(String(format: "track %.0f°", track)) }
        if !motion.isEmpty { lines.append("  " + motion.joined(separator: " · ").capitalizingFirst()) }
        if let place {
            lines.append("  Place: \(place.place.displayName)" + console.dim(" (\(place.relativeDescription))"))
        } else {
            lines.append("  Place: none known nearby")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func accuracyText(_ fix: Fix) -> String {
        guard let radius = fix.horizontalAccuracy else { return "" }
        return " ±\(formatMetres(radius))" + (fix.accuracySource.map { " (\($0))" } ?? "")
    }

    /// "Providers:" and what each did (`--verbose`).
    public func render(_ attempts: [LocationChain.Attempt]) -> String {
        var lines = ["Providers:"]
        for attempt in attempts {
            let time = attempt.seconds.map { String(format: " in %.2f s", $0) } ?? ""
            switch attempt.outcome {
            case .answered: lines.append("  \(attempt.provider): answered\(time)")
            case .failed(let reason): lines.append("  \(attempt.provider): failed\(time): \(reason)")
            case .skipped(let reason): lines.append("  \(attempt.provider): skipped: \(reason)")
            case .notTried: lines.append("  \(attempt.provider): not needed")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `airloc auth`: the state and the accuracy allowed, and the administrator's policy
    /// when it is not the default.
    public func render(_ authorization: LocationAuthorization, policy: AuthorizationPolicy) -> String {
        var text = "\(authorization.status.rawValue) (accuracy: \(authorization.accuracy.rawValue))\n"
        if policy.mode != .ask || policy.maximumAccuracy != .full {
            text += "administrator policy: \(policy.mode.rawValue), max accuracy \(policy.maximumAccuracy.rawValue)\n"
        }
        return text
    }

    /// One event of `locate --watch` as a line: time, event, provider, position, place, why.
    public func render(_ event: WatchEventJSON) -> String {
        var line = "\(event.time)  \(event.event.replacingOccurrences(of: "_", with: " "))  [\(event.provider)]"
        if let location = event.location {
            line += String(format: "  %.6f, %.6f", location.latitude, location.longitude)
            if let radius = location.accuracyM { line += " ±\(formatMetres(radius))" }
        }
        if let place = event.place { line += "  \(place.displayName)" }
        if let reason = event.reason { line += "  (\(reason))" }
        if let retry = event.retryInS { line += String(format: ", retrying in %.1f s", retry) }
        return line + "\n"
    }
}

extension String {
    func capitalizingFirst() -> String { prefix(1).uppercased() + dropFirst() }

}
