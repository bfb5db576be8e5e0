import Airloc
import Foundation
import Geo
import HTTPService
import Logbook
import Platform
import Plot

/// What `airloc serve` answers, request by request: the access rules first, then the
/// served set of paths (docs/serve.md).
///
/// Contract:
/// - Only GET and HEAD (405, with `Allow`); a request head over ``maxHeadBytes`` is 431;
///   a path outside the served set is 404, so `..` or an encoded path leads nowhere.
/// - With a password, every path needs HTTP Basic, user `airloc`, compared in constant
///   time (401 with a challenge otherwise); an address that sent too many wrong passwords
///   is refused for a while (``PasswordGate``: 429).
/// - A range is answered a page at a time, with a link to the next page (``LogPage``):
///   `/api/track` at most ``pageRows`` rows of each kind (a reading is half a kilobyte of
///   GeoJSON), `/api/map` at most ``mapPoints`` points.
/// - Every answer says `X-Content-Type-Options: nosniff` and the page's
///   Content-Security-Policy: the device's own origin, plus the tile host when set.
public struct DeviceRoutes: Sendable {
    /// The largest request head accepted, in bytes.
    public static let maxHeadBytes = 8192
    /// Rows of each kind in one page of `/api/track`.
    public static let pageRows = 1_000
    /// Points in one page of `/api/map`.
    public static let mapPoints = 10_000
    /// What it serves from.
    public let source: DeviceSource
    /// The password of HTTP Basic (nil: none asked).
    let password: String?
    /// Where Debian's libjs-leaflet lives.
    let leaflet: URL
    /// The moment each answer is made at: ages and the day's window count from it.
    let clock: @Sendable () -> Date
    /// The answers of this second, for the requests that follow in it.
    private let recent = RecentReplies()
    /// The day's figures made, and the bound on making them.
    private let figures = FigureCache()
    /// Draws them, one at a time, below the connections' priority.
    private let figureWorker = FigureWorker()
    /// The wrong passwords of each client address.
    let gate: PasswordGate

    /// Routes over `source`; `password` from `[serve] password-file`; `notify` hears what
    /// the routes have to say (an address refused for its wrong passwords).
    public init(
        source: DeviceSource, password: String?,
        leaflet: URL = URL(fileURLWithPath: "/usr/share/javascript/leaflet"),
        clock: @escaping @Sendable () -> Date = { Date() },
        notify: @escaping @Sendable (ServiceNotice) -> Void = { _ in }
    ) {
        self.source = source
        self.password = password
        self.leaflet = leaflet
        self.clock = clock
        gate = PasswordGate(notify: notify)
    }

    /// The answer to `request`.
    public func answer(_ request: ServedRequest) -> ServedReply {
        // The logbook's version before the documents are made: a row committed meanwhile
        // makes the kept answer stale at once.
        let version = source.version
        let second = RecentReplies.second(clock())
        var reply = route(request)
        reply.headers += ServedReplies.headers(tileOrigin: source.settings.serve.tileOrigin)
        if let key = RecentReplies.key(request), allowed(request) {
            recent.finish(key, reply: reply, version: version, second: second)
        }
        return reply
    }

    /// The answer made already for the logbook as it is (this second's, or the last one
    /// while the next is being made), or nil: then this request makes it with
    /// ``answer(_:)``. The same access rules apply. It may wait for another request making
    /// the answer to a newer commit, so it runs on the connection's thread, never on
    /// Swift's executor.
    public func recentAnswer(_ request: ServedRequest) -> ServedReply? {
        guard let key = RecentReplies.key(request), allowed(request) else { return nil }
        switch recent.lookUp(key, version: source.version, second: RecentReplies.second(clock())) {
        case .kept(let reply): return reply
        case .make: return nil
        }
    }

    /// A GET or HEAD with a head in bounds and the password when one is asked.
    private func allowed(_ request: ServedRequest) -> Bool {
        (request.method == "GET" || request.method == "HEAD") && request.headBytes <= Self.maxHeadBytes
            && (password.map {
                Self.authorized(request.headers["authorization"], password: $0)
                    && gate.refusal(of: request.client, at: clock()) == nil
            } ?? true)
    }

    private func route(_ request: ServedRequest) -> ServedReply {
        if let refusal = ServedReplies.refusal(request) { return refusal }
        let now = clock()
        if let refusal = ServedReplies.unauthorized(request, password: password, gate: gate, now: now) {
            return refusal
        }
        switch request.path {
        case "/": return html(DevicePage(source: source, now: now, report: source.now(at: now)).html)
        case "/card":
            var reply = html(DevicePage(source: source, now: now, report: source.now(at: now)).cardHTML)
            reply.headers.append(("Cache-Control", "no-store"))
            return reply
        case "/api/now":
            guard let report = source.now(at: now) else {
                return missing("no track point in the logbook yet: `airloc log run` logs one")
            }
            return json(source.position.nowDocument(report))
        case "/api/status":
            guard let status = source.status(at: now) else { return missing(noLogbook) }
            return json(JSONDocument.encode(status, pretty: false) + "\n")
        case "/api/track", "/api/map":
            guard let logbook = source.logbook else { return missing(noLogbook) }
            guard let window = Self.window(request.arguments, day: Self.day(logbook, now: now)) else {
                return ServedReply(status: 400, text: "since and until take ISO 8601 times (2026-12-02T08:00Z)\n")
            }
            return page(request, logbook: logbook, window: window)
        case "/api/events":
            guard let logbook = source.logbook, let latest = try? logbook.lastIDs() else { return missing(noLogbook) }
            var reply = ServedReply(status: 200, contentType: "text/event-stream; charset=utf-8", text: "")
            reply.stream = EventStream(
                source: source, seen: EventStream.resume(from: request.headers["last-event-id"], latest: latest))
            reply.headers.append(("Cache-Control", "no-store"))
            return reply
        case "/metrics":
            let open = DeviceMetrics.asksOpenMetrics(request)
            var reply = ServedReply(
                status: 200, contentType: MetricsExposition(openMetrics: open).contentType,
                text: DeviceMetrics(source: source, now: now).text(openMetrics: open))
            reply.headers.append(("Cache-Control", "no-store"))
            return reply
        case "/data.json":
            return json(AirrohrData.json(source: source, now: now))
        case "/day.svg":
            guard let logbook = source.logbook else { return missing(noLogbook) }
            guard let width = Self.figureWidth(request.arguments["width"]) else {
                return ServedReply(status: 400, text: "width takes a number of pixels from 240 to 1600\n")
            }
            // Kept per logbook version, width step and minute; drawn by one worker below the
            // connections' priority, two requests making at most (a third: 503).
            let step = FigureCache.width(width)
            let key = FigureCache.key(version: source.version, width: step, now: now)
            switch figures.lookUp(key) {
            case .kept(let reply): return reply
            case .busy:
                var reply = ServedReply(status: 503, text: "busy making figures; try again shortly\n")
                reply.headers.append(("Retry-After", "2"))
                return reply
            case .make:
                let window = Self.day(logbook, now: now)
                let reply = figureWorker.make { [self] in dayFigure(logbook, window: window, width: step) }
                figures.finish(key, reply: reply)
                return reply
            }
        case "/page.js":
            return ServedReply(status: 200, contentType: "text/javascript; charset=utf-8", text: PageScript.text)
        case "/page.css": return ServedReply(status: 200, contentType: "text/css; charset=utf-8", text: PageStyle.text)
        default: return Self.asset(request.path, leaflet: leaflet)
        }
    }

    private var noLogbook: String {
        "no logbook at \(source.settings.logDatabase.path) yet: `airloc log run` makes one"
    }

    /// Leaflet's files, from their Debian path: a fixed list, nothing else on disk is reachable.
    static func asset(_ path: String, leaflet: URL) -> ServedReply {
        let files: [String: String] = [
            "/leaflet/leaflet.js": "text/javascript; charset=utf-8", "/leaflet/leaflet.css": "text/css; charset=utf-8",
        ]
        let images = ["layers.png", "layers-2x.png", "marker-icon.png", "marker-icon-2x.png", "marker-shadow.png"]
        let type = files[path] ?? (images.contains { path == "/leaflet/images/" + $0 } ? "image/png" : nil)
        guard let type else { return ServedReply(status: 404, text: "not found\n") }
        guard
            let data = try? Data(contentsOf: leaflet.appendingPathComponent(String(path.dropFirst("/leaflet/".count))))
        else { return ServedReply(status: 404, text: "Leaflet is not installed (Debian: apt install libjs-leaflet)\n") }
        var reply = ServedReply(status: 200, contentType: type, body: data)
        reply.headers.append(("Cache-Control", "max-age=86400"))
        return reply
    }

    private func html(_ text: String) -> ServedReply { ServedReplies.html(text) }
    private func json(_ text: String) -> ServedReply { ServedReplies.json(text) }
    private func missing(_ why: String) -> ServedReply { ServedReplies.error(why) }

    /// One page of `/api/map` or `/api/track` in `window`, with the link to the next.
    private func page(_ request: ServedRequest, logbook: Logbook, window: LogWindow) -> ServedReply {
        let map = request.path == "/api/map"
        let end: Date?
        do {
            end = try LogPage.end(
                of: window, rowsPerKind: map ? Self.mapPoints : Self.pageRows, kinds: map ? .track : .all, in: logbook)
        } catch {
            return ServedReply(status: 500, text: "the logbook could not be read: \(error)\n")
        }
        var page = window
        if let end { page.until = end }
        var arguments = request.arguments
        if arguments["until"] == nil, let until = window.until { arguments["until"] = UTCTime.iso8601Seconds(until) }
        let next = end.map { ServedReplies.nextPage(request.path, end: $0, arguments: arguments) }
        if map {
            return ServedReplies.paged(json(DayMap(source: source).json(logbook, window: page, next: next)), next: next)
        }
        return ServedReplies.paged(geojson(logbook, window: page, next: next), next: next)
    }

    private func geojson(_ logbook: Logbook, window: LogWindow, next: String?) -> ServedReply {
        let position = source.position
        guard position.showsTrack else { return missing(ServedPosition.noTrack) }
        var body = Data()
        do {
            _ = try LogExport.write(
                logbook, format: .geojson, kind: .all, window: window, grid: position.trackGrid, next: next
            ) { body.append($0) }
        } catch {
            return ServedReply(status: 500, text: "the logbook could not be read: \(error)\n")
        }
        var reply = ServedReply(status: 200, contentType: "application/geo+json", body: body)
        reply.headers.append(("Cache-Control", "no-store"))
        return reply
    }

    /// The figure's text never below this, px: shown at its own width (page.js asks for
    /// the width it is shown at), every label reads at 11 CSS px or more.
    static let figureText = 12.0

    /// `width` of `/day.svg`: 800 px when absent, nil when it is not 240...1600.
    static func figureWidth(_ argument: String?) -> Int? {
        guard let argument else { return 800 }
        guard let width = Int(argument), (240...1600).contains(width) else { return nil }
        return width
    }

    private func dayFigure(_ logbook: Logbook, window: LogWindow, width: Int) -> ServedReply {
        var options = DayPlot.Options(window: window, scale: source.settings.scale)
        options.width = width
        // Tall enough for the map and the air panel on a phone; not a poster on a desktop.
        options.height = min(max(width * 3 / 5, 440), 640)
        options.smallestText = Self.figureText
        options.track = source.position.showsTrack
        // Every vertex and label on the grid the API serves: the figure is no side door.
        options.grid = source.position.trackGrid
        var text = ""
        do { _ = try DayPlot(logbook: logbook, gazetteer: source.gazetteer, options: options).svg { text += $0 } } catch
        {
            return ServedReply(status: 404, text: "nothing to draw for the last 24 hours yet\n")
        }
        var reply = ServedReply(status: 200, contentType: "image/svg+xml", text: text)
        reply.headers.append(("Cache-Control", "no-store"))
        return reply
    }

    /// The day the page shows: the last 24 hours, or, when the logger has been stopped
    /// longer than that, the 24 hours up to its last fix (a device brought back in from the
    /// field shows its last day, not an empty one).
    static func day(_ logbook: Logbook, now: Date) -> LogWindow {
        guard let last = (try? logbook.latestTrackPoint())?.time, last < now.addingTimeInterval(-86_400) else {
            return LogWindow(since: now.addingTimeInterval(-86_400))
        }
        return LogWindow(since: last.addingTimeInterval(-86_400), until: last.addingTimeInterval(1))
    }

    /// `since` and `until` (ISO 8601) over `day`; nil when one does not parse.
    static func window(_ arguments: [String: String], day: LogWindow) -> LogWindow? {
        var window = day
        if let since = arguments["since"] {
            guard let date = UTCTime.parse(since) else { return nil }
            window.since = date
        }
        if let until = arguments["until"] {
            guard let date = UTCTime.parse(until) else { return nil }
            window.until = date
        }
        return window
    }

    /// HTTP Basic with user `airloc` and `password`, compared in constant time.
    static func authorized(_ header: String?, password: String) -> Bool {
        guard let header, header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces))
        else { return false }
        let expected = Array("airloc:\(password)".utf8)
        let given = Array(decoded)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }
}
