import AirQuality
import Foundation
import Gazetteer
import Geo
import Logbook

/// `airloc log plot`: one figure of a logbook's window — the track coloured by the air in
/// force at each point, and the day's air over time (docs/plot.md).
///
/// Contract:
/// - The track is drawn in the EPA category colour of the reading in force at each point:
///   measured (a sensor row of the last 10 minutes) where there is one, else the model's
///   hour; grey where neither is known. A new logbook segment, or a jump of more than 1 km
///   or 5 minutes, is a gap, never a line. Points closer than a pixel to the last drawn are
///   thinned, but every colour change is kept.
/// - The track is read twice from the logbook (its extent, then the drawing), never held:
///   memory stays flat for a day of 100,000 points.
/// - The time axis spans the track and the measured readings. A fixed station (one track
///   point, or several at one place) with readings draws its day, the map a single point
///   named by its place.
/// - No track point, or one without a reading, is ``PlotError/tooFew(_:)``, never an
///   empty picture.
public struct DayPlot {
    /// What the figure is written as: SVG (text, for a browser or a terminal) or PNG (a
    /// bitmap, for e-paper and small displays; ``PNGRendering``).
    public enum Format: String, Sendable, CaseIterable {
        case svg, png
    }

    /// What to draw.
    public struct Options: Sendable {
        /// The rows drawn.
        public var window = LogWindow()
        /// The figure's width, px.
        public var width = 800
        /// The figure's height, px.
        public var height = 480
        /// The index drawn (US or European).
        public var scale = AQIScale.us
        /// The track drawn on its map (false: the map panel says that positions are not
        /// shown, and nothing of the track is drawn — no line, start, end, scale or arrow:
        /// `airloc serve` with `[serve] position = none`).
        public var track = true
        /// The smallest text drawn, px, whatever the size (nil: it follows the figure's
        /// size). A page showing the figure at its own size asks for what reads there.
        public var smallestText: Double?
        /// The grid every position is put on before anything is drawn, degrees (nil: as
        /// logged): `[serve] position = coarse` draws its 0.01° grid, line, marks, labels and
        /// extent alike, as its API serves them.
        public var grid: Double?

        /// Options.
        public init(window: LogWindow = LogWindow(), width: Int = 800, height: Int = 480, scale: AQIScale = .us) {
            (self.window, self.width, self.height, self.scale) = (window, width, height, scale)
        }
    }

    /// The rows' logbook.
    public let logbook: Logbook
    /// The place data, for the names beside the start and end.
    public let gazetteer: Gazetteer?
    /// What to draw.
    public let options: Options

    /// A figure of `logbook`.
    public init(logbook: Logbook, gazetteer: Gazetteer?, options: Options) {
        (self.logbook, self.gazetteer, self.options) = (logbook, gazetteer, options)
    }

    /// What was drawn, for the caller to say.
    public struct Drawn: Sendable, Equatable {
        /// Track points in the window.
        public var points = 0
        /// Points drawn after thinning.
        public var drawnPoints = 0
        /// Segments drawn.
        public var segments = 0
        /// Air rows drawn.
        public var airRows = 0
        /// Measured readings drawn.
        public var sensorRows = 0
    }

    /// Writes the SVG to `sink` in chunks.
    public func svg(to sink: @escaping (String) throws -> Void) throws -> Drawn {
        let extent = try TrackExtent(logbook.trackPoints(in: options.window), grid: options.grid)
        let readings = try AirInForce(logbook: logbook, window: options.window, scale: options.scale)
        // A fixed station (a balcony's sensor, `log run --lat --lon`) has one track point and
        // hours of readings: its day is the readings', its map a single point.
        guard let first = extent.first, let last = extent.last, extent.count >= 2 || !readings.sensor.isEmpty
        else { throw PlotError.tooFew(extent.count) }
        let startPlace = gazetteer?.locality(for: first.coordinate)?.place
        let zone = startPlace?.timezone ?? ""
        // Without the track, a place's name only: never a coordinate in its stead.
        let startName = startPlace?.name ?? (options.track ? "\(first.coordinate)" : "The day")
        let endName =
            gazetteer?.locality(for: last.coordinate)?.place.name ?? (options.track ? "\(last.coordinate)" : startName)
        let times =
            [first.time, last.time] + [readings.sensor.first?.time, readings.sensor.last?.time].compactMap { $0 }
        let span = TimeSpan(start: times.min()!, end: times.max()!, zone: zone)
        let air = AirPanel(readings: readings, span: span, scale: options.scale)
        let layout = PlotLayout(
            width: options.width, height: options.height, smallestText: options.smallestText,
            legend: air.legendItems.map(\.label), attribution: Self.attribution)
        let title = startName == endName ? startName : "\(startName) → \(endName)"
        var out = SVGWriter(sink: sink)
        try out.open(
            width: options.width, height: options.height,
            title: "airloc: \(startName == endName ? startName : "\(startName) to \(endName)"), \(span.text)")
        try out.text(
            title, x: layout.track.x, y: layout.font * 1.2, size: layout.font * 1.15, id: "title", weight: "bold")
        try out.text(span.text, x: layout.track.x, y: layout.font * 2.3, size: layout.font * 0.85, id: "span")
        var drawn = Drawn(points: extent.count, airRows: readings.air.count, sensorRows: readings.sensor.count)
        if options.track {
            let projection = PlotLayout.Projection(
                south: extent.south, west: extent.west, north: extent.north, east: extent.east, panel: layout.track)
            try TrackDrawing(projection: projection, readings: readings, grid: options.grid).draw(
                logbook.trackPoints(in: options.window), into: &out, drawn: &drawn)
            try marks(
                first: first, last: last, names: (startName, endName), projection: projection, layout: layout,
                into: &out)
        } else {
            try out.text(
                "positions are not shown here", x: layout.track.x + layout.track.width / 2,
                y: layout.track.y + layout.track.height / 2, size: layout.font, anchor: "middle", id: "no-track",
                fill: "#666666")
        }
        try air.draw(into: &out, layout: layout)
        for (line, credit) in layout.attribution.enumerated() {
            try out.text(
                credit.text, x: layout.attributionRight, y: credit.baseline,
                size: layout.font * PlotLayout.smallestRatio,
                anchor: "end", id: line == 0 ? "attribution" : "attribution-\(line + 1)", fill: "#666666")
        }
        try out.close()
        return drawn
    }

    /// Whose data the figure shows.
    static let attribution = "Air quality: Open-Meteo.com, CAMS · Places: GeoNames"

    /// Start and end, the scale bar and the north arrow.
    private func marks(
        first: TrackPoint, last: TrackPoint, names: (start: String, end: String), projection: PlotLayout.Projection,
        layout: PlotLayout, into out: inout SVGWriter
    ) throws {
        let start = projection.point(first.coordinate)
        let end = projection.point(last.coordinate)
        let r = SVGWriter.number(layout.font * 0.4)
        try out.write(
            "<circle id=\"start\" cx=\"\(SVGWriter.number(start.x))\" cy=\"\(SVGWriter.number(start.y))\" r=\"\(r)\" "
                + "fill=\"#FFFFFF\" stroke=\"#222222\" stroke-width=\"1.5\"/>\n")
        try out.write(
            "<circle id=\"end\" cx=\"\(SVGWriter.number(end.x))\" cy=\"\(SVGWriter.number(end.y))\" r=\"\(r)\" "
                + "fill=\"#222222\"/>\n")
        // The places beside their marks (one label where they are the same place).
        let size = layout.font * 0.75
        try out.text(names.start, x: start.x + size * 0.8, y: start.y - size * 0.6, size: size, id: "start-name")
        if names.end != names.start {
            try out.text(names.end, x: end.x + size * 0.8, y: end.y + size * 1.4, size: size, id: "end-name")
        }
        let bar = PlotLayout.scaleBar(metresPerPixel: projection.metresPerPixel, pixels: layout.track.width / 4)
        let length = bar.metres / projection.metresPerPixel
        let x = layout.track.x + layout.font * 0.5
        let y = layout.track.y + layout.track.height - layout.font * 0.5
        try out.write(
            "<g id=\"scale\"><path d=\"M\(SVGWriter.number(x)) \(SVGWriter.number(y))h\(SVGWriter.number(length))\" "
                + "stroke=\"#222222\" stroke-width=\"2\" fill=\"none\"/>\n")
        try out.text(bar.label, x: x, y: y - layout.font * 0.4, size: layout.font * 0.75)
        try out.write("</g>\n")
        let nx = layout.track.x + layout.track.width - layout.font
        let ny = layout.track.y + layout.font * 0.4
        let f = layout.font
        try out.write(
            "<g id=\"north\"><path d=\"M\(SVGWriter.number(nx)) \(SVGWriter.number(ny))l\(SVGWriter.number(f * 0.4)) "
                + "\(SVGWriter.number(f))h-\(SVGWriter.number(f * 0.8))z\" fill=\"#222222\"/>\n")
        try out.text("N", x: nx, y: ny + f * 2, size: f * 0.8, anchor: "middle")
        try out.write("</g>\n")
    }
}

/// Why there is no picture.
public enum PlotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The window holds no track point, or one and no measured reading: nothing to draw.
    case tooFew(Int)

    /// Why there is nothing to draw, or what failed.
    public var description: String {
        switch self {
        case .tooFew(let count):
            return "nothing to draw: the window holds \(count) track point\(count == 1 ? "" : "s") and no measured "
                + "reading; a plot needs 2 points, or a fixed station's readings"
        }
    }
}

/// The first pass over the track: how many points, where, from when to when.
struct TrackExtent {
    var count = 0
    var south = 90.0, north = -90.0, west = 180.0, east = -180.0
    var first: TrackPoint?
    var last: TrackPoint?

    init(_ cursor: TrackCursor, grid: Double?) throws {
        var points = cursor
        while var point = points.next() {
            if let grid { point.coordinate = point.coordinate.rounded(toDegrees: grid) }
            count += 1
            if first == nil { first = point }
            last = point
            let c = point.coordinate
            (south, north) = (min(south, c.latitude), max(north, c.latitude))
            (west, east) = (min(west, c.longitude), max(east, c.longitude))
        }
        if let error = points.error { throw error }
    }
}
