import Foundation
import Geo
import Logbook

/// The track as polylines, one per run of one colour within one stretch without a gap.
///
/// Contract: a new logbook segment, or a jump of more than 1 km or 5 minutes between two
/// points, ends a stretch (a gap, not a line). A colour change ends a polyline and starts
/// the next at the same point, so the line stays whole. A point less than a pixel from
/// the last drawn, in the same colour, is left out.
struct TrackDrawing {
    let projection: PlotLayout.Projection
    let readings: AirInForce
    /// The grid points are put on before they are drawn (``DayPlot/Options/grid``).
    var grid: Double? = nil
    static let gapMetres = 1000.0
    static let gapSeconds = 300.0

    func draw(_ cursor: TrackCursor, into out: inout SVGWriter, drawn: inout DayPlot.Drawn) throws {
        try out.write(
            "<g id=\"track\" fill=\"none\" stroke-width=\"3\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n")
        var points = cursor
        var previous: TrackPoint?
        var line: (color: String, points: String, count: Int)?
        var last: (x: Double, y: Double)?
        func finish(_ out: inout SVGWriter) throws {
            if let current = line, current.count >= 2 {
                try out.write("<polyline stroke=\"\(current.color)\" points=\"\(current.points)\"/>\n")
            }
            line = nil
        }
        while var point = points.next() {
            if let grid { point.coordinate = point.coordinate.rounded(toDegrees: grid) }
            let xy = projection.point(point.coordinate)
            let text = "\(SVGWriter.number(xy.x)),\(SVGWriter.number(xy.y))"
            let color = readings.color(at: point.time)
            let gap =
                previous.map { before in
                    before.segment != point.segment || point.time.timeIntervalSince(before.time) > Self.gapSeconds
                        || before.coordinate.distance(to: point.coordinate) > Self.gapMetres
                } ?? true
            if gap {
                try finish(&out)
                drawn.segments += 1
                line = (color, text, 1)
                last = xy
                drawn.drawnPoints += 1
            } else if let current = line, current.color != color {
                // The new colour starts where the old one ends.
                let joint = last.map { "\(SVGWriter.number($0.x)),\(SVGWriter.number($0.y))" } ?? text
                try finish(&out)
                line = (color, joint + " " + text, 2)
                last = xy
                drawn.drawnPoints += 1
            } else if let at = last, hypot(xy.x - at.x, xy.y - at.y) < 1 {
                // Thinned: closer than a pixel.
            } else {
                line?.points += " " + text
                line?.count += 1
                last = xy
                drawn.drawnPoints += 1
            }
            previous = point
        }
        if let error = points.error { throw error }
        try finish(&out)
        try out.write("</g>\n")
    }
}
