import AirQuality
import FleetStore
import Foundation
import Geo
import HTTPService
import Platform
import Settings

/// What `airloc serve` answers with `[serve] source = collector`: the fleet's page over
/// the collector's database (docs/fleet.md).
///
/// Contract:
/// - The access rules of the device's page (GET and HEAD, a bounded head, HTTP Basic
///   with `password-file`), except for a share link: a request carrying `share=TOKEN`
///   needs no password and reaches only `/`, `/api/map` and `/api/track`, for the link's
///   device and within its window; everything else it asks for is 404, as is a token that
///   is unknown, revoked or expired. The page's script, style and Leaflet need no password
///   (they hold no data).
/// - Every position is as `[serve] position` allows; with `none`, no track is served.
/// - It answers on the connection's own thread (``answer(_:)`` is synchronous): libpq
///   blocks, and Swift's executor is not held by a query. `/`, `/api/last` and `/metrics`
///   are made once a second at most, a device's track once per change of its rows, whatever
///   the number of clients (``FleetAnswers``).
public struct FleetRoutes: Sendable {
    /// The collector's database.
    public let fleet: FleetDatabase
    /// `[serve]`.
    public let serve: ServeSettings
    let password: String?
    let leaflet: URL
    let clock: @Sendable () -> Date
    private let recent = FleetAnswers()
    /// The wrong passwords of each client address.
    let gate: PasswordGate
    /// Whether the database is ready for the page.
    let readiness: FleetReadiness

    /// Routes over `fleet`; `password` from `[serve] password-file`.
    public init(
        fleet: FleetDatabase, serve: ServeSettings, password: String?,
        readiness: FleetReadiness = FleetReadiness(ready: true),
        leaflet: URL = URL(fileURLWithPath: "/usr/share/javascript/leaflet"),
        clock: @escaping @Sendable () -> Date = { Date() },
        notify: @escaping @Sendable (ServiceNotice) -> Void = { _ in }
    ) {
        self.fleet = fleet
        self.serve = serve
        self.password = password
        self.leaflet = leaflet
        self.clock = clock
        gate = PasswordGate(notify: notify)
        self.readiness = readiness
    }

    /// The answer to `request`.
    public func answer(_ request: ServedRequest) -> ServedReply {
        var reply = route(request)
        reply.headers += ServedReplies.headers(tileOrigin: serve.tileOrigin)
        return reply
    }

    private func route(_ request: ServedRequest) -> ServedReply {
        if let refusal = ServedReplies.refusal(request) { return refusal }
        switch request.path {
        case "/fleet.js":
            return ServedReply(status: 200, contentType: "text/javascript; charset=utf-8", text: FleetScript.text)
        case "/page.css": return ServedReply(status: 200, contentType: "text/css; charset=utf-8", text: PageStyle.text)
        case let path where path.hasPrefix("/leaflet/"): return DeviceRoutes.asset(path, leaflet: leaflet)
        default: break
        }
        let now = clock()
        if let token = request.arguments["share"] {
            // On a page with a password a token is a credential: a wrong one counts as a
            // wrong password (so guessing tokens is as slow as guessing the password), and
            // nothing of the database's state is said before one is right.
            guard password != nil else { return readiness.refusal() ?? shared(request, token: token, now: now).reply }
            if let wait = gate.refusal(of: request.client, at: now) { return ServedReplies.tooManyWrong(wait) }
            if let refusal = readiness.refusal() { return refusal.status == 503 ? Self.notNow : refusal }
            let (reply, known) = shared(request, token: token, now: now)
            if !known { gate.wrong(from: request.client, at: now) }
            return reply.status == 503 ? Self.notNow : reply
        }
        // The password first: a client without it learns nothing, not even the database's state.
        if let refusal = ServedReplies.unauthorized(request, password: password, gate: gate, now: now) {
            return refusal
        }
        if let refusal = readiness.refusal() { return refusal }
        do {
            switch request.path {
            case "/":
                return try recent.ofSecond("/", now: now) { () throws(DatabaseError) in
                    // The first page of devices; the page's script reads every page of /api/last.
                    html(
                        FleetPage(
                            serve: serve, devices: try fleet.last(limit: Self.pageDevices, notAfter: ahead(now)),
                            now: now
                        ).html)
                }
            case "/api/last":
                // A page of devices at a time, by id: the next page's link in `Link`.
                let after = request.arguments["after"]
                return try recent.ofSecond("/api/last \(after ?? "")", now: now) { () throws(DatabaseError) in
                    let devices = try fleet.last(after: after, limit: Self.pageDevices, notAfter: ahead(now))
                    let next =
                        devices.count == Self.pageDevices
                        ? devices.last.map { ServedReplies.nextPage("/api/last", after: $0.deviceID) } : nil
                    return ServedReplies.paged(json(FleetLast.json(devices, now: now, serve: serve)), next: next)
                }
            case "/metrics":
                let open = MetricsExposition.asksOpenMetrics(request)
                return try recent.ofSecond("/metrics \(open)", now: now) { () throws(DatabaseError) in
                    var reply = ServedReply(
                        status: 200, contentType: MetricsExposition(openMetrics: open).contentType,
                        text: FleetLast.metrics(try fleet.last(notAfter: ahead(now)), now: now, openMetrics: open))
                    reply.headers.append(("Cache-Control", "no-store"))
                    return reply
                }
            case "/api/track", "/api/map":
                guard let device = request.arguments["device"], let version = try fleet.version(of: device) else {
                    return missing("no such device: /api/track?device=ID takes an id of /api/last")
                }
                guard let window = Self.window(request.arguments, now: now) else {
                    return ServedReply(status: 400, text: "since and until take ISO 8601 times (2026-12-02T08:00Z)\n")
                }
                return try track(
                    request.path, device: device, window: window, version: version, arguments: request.arguments)
            default: return ServedReply(status: 404, text: "not found\n")
            }
        } catch {
            return unavailable(error)
        }
    }

    /// What a share link's request gets on a page with a password while the database cannot
    /// answer: nothing of why (the reason is for those with the password).
    static var notNow: ServedReply {
        var reply = ServedReply(status: 503, text: "not available now; try again later\n")
        reply.headers.append(("Retry-After", "10"))
        return reply
    }

    /// A share link's request: its device and window only; `known` is false when the
    /// token names no link (a guess).
    private func shared(_ request: ServedRequest, token: String, now: Date) -> (reply: ServedReply, known: Bool) {
        let link: ShareLink?
        do { link = try fleet.share(token: token, at: now) } catch { return (unavailable(error), true) }
        let refused = missing("no such share link, or it has expired or been revoked")
        guard let link else { return (refused, false) }
        guard ["/", "/api/map", "/api/track"].contains(request.path),
            request.arguments["device"].map({ $0 == link.deviceID }) ?? true
        else { return (refused, true) }
        guard var window = Self.window(request.arguments, now: now, default: (link.since, link.until)) else {
            return (ServedReply(status: 400, text: "since and until take ISO 8601 times (2026-12-02T08:00Z)\n"), true)
        }
        window = (max(window.since, link.since), min(window.until, link.until))
        if request.path == "/" { return (html(FleetPage(serve: serve, share: link, now: now).html), true) }
        do {
            guard let version = try fleet.version(of: link.deviceID) else {
                return (missing("no rows of this device"), true)
            }
            return (
                try track(
                    request.path, device: link.deviceID, window: window, version: version,
                    arguments: request.arguments), true
            )
        } catch {
            return (unavailable(error), true)
        }
    }

    /// Devices in one page of `/api/last`.
    public static let pageDevices = 1_000

    /// The latest a row may be dated at `now` and be a device's last (``FleetLast/aheadAtMost``).
    func ahead(_ now: Date) -> Date { now.addingTimeInterval(FleetLast.aheadAtMost) }

    /// `/api/map` or `/api/track` of `device` in `window`, made again only when the device's
    /// rows changed (`version`). `/api/track` is a page of at most ``DeviceRoutes/pageRows``
    /// rows of each kind, with a link to the next; `/api/map` thins the window's points.
    private func track(
        _ path: String, device: String, window: (since: Date, until: Date), version: String,
        arguments: [String: String] = [:]
    ) throws(DatabaseError) -> ServedReply {
        let position = ServedPosition(serve.position)
        guard position.showsTrack else { return missing(ServedPosition.noTrack) }
        let decimals = position.trackGrid == nil ? nil : position.decimals
        let key = [path, device, UTCTime.iso8601(window.since), UTCTime.iso8601(window.until)].joined(separator: " ")
        return try recent.track(key, version: version) { () throws(DatabaseError) in
            if path == "/api/map" {
                let points = try fleet.trackPoints(
                    device: device, since: window.since, until: window.until, measuredFor: FleetLast.measuredFor)
                return json(FleetMap.json(points, decimals: decimals))
            }
            let end = try fleet.pageEnd(
                device: device, since: window.since, until: window.until, rows: DeviceRoutes.pageRows)
            var query = arguments
            query["until"] = UTCTime.iso8601(window.until)
            let next = end.map { ServedReplies.nextPage("/api/track", end: $0, arguments: query) }
            var body = try fleet.trackGeoJSON(
                device: device, since: window.since, until: end ?? window.until, decimals: decimals)
            if let next, body.count >= 3 {
                // The collection's `next` member, before its closing brace.
                body.removeLast(3)
                body.append(contentsOf: Array(("],\"next\":" + ServedReplies.quoted(next) + "}\n").utf8))
            }
            var reply = ServedReply(status: 200, contentType: "application/geo+json", body: body)
            reply.headers.append(("Cache-Control", "no-store"))
            return ServedReplies.paged(reply, next: next)
        }
    }

    /// `since` and `until` (ISO 8601) over `default` (the last 24 hours); nil when one does
    /// not parse or the window is empty.
    static func window(_ arguments: [String: String], now: Date, default fallback: (Date, Date)? = nil) -> (
        since: Date, until: Date
    )? {
        // The whole second: requests of one second share the answer kept for it.
        let second = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        var (since, until) = fallback ?? (second.addingTimeInterval(-86_400), second.addingTimeInterval(1))
        if let text = arguments["since"] {
            guard let date = UTCTime.parse(text) else { return nil }
            since = date
        }
        if let text = arguments["until"] {
            guard let date = UTCTime.parse(text) else { return nil }
            until = date
        }
        return since < until ? (since, until) : nil
    }

    private func html(_ text: String) -> ServedReply { ServedReplies.html(text) }
    private func json(_ text: String) -> ServedReply { ServedReplies.json(text) }
    private func missing(_ why: String) -> ServedReply { ServedReplies.error(why) }

    /// The database could not answer: 503, saying why (never the connection string's secret).
    private func unavailable(_ error: DatabaseError) -> ServedReply {
        var reply = ServedReplies.error("the collector's database: \(error)", status: 503)
        reply.headers.append(("Retry-After", "5"))
        return reply
    }
}
