import AirQuality
import Foundation

/// The day's air over time: the index as a step line over its category bands, the model's
/// and the measured PM2.5 beside it, back-filled hours marked, the time axis in the
/// place's local time.
///
/// Contract: the index axis runs from 0 to the top of the highest band reached (at least
/// the third: 150 on the US scale, 60 on the European); PM2.5 has an axis of its own on
/// the right. Back-filled hours are shaded with a hatch (they were fetched later, from the
/// service's history).
struct AirPanel {
    let layout: PlotLayout
    let readings: AirInForce
    let span: TimeSpan
    let scale: AQIScale

    var bands: [(low: Int, high: Int, color: String)] {
        scale == .eu
            ? [(0, 20), (20, 40), (40, 60), (60, 80), (80, 100), (100, 150)].map {
                ($0.0, $0.1, EuropeanAQICategory(index: $0.0 + 1).color)
            }
            : [(0, 50), (51, 100), (101, 150), (151, 200), (201, 300), (301, 500)].map {
                ($0.0, $0.1, AQICategory(aqi: $0.0).color)
            }
    }

    func draw(into out: inout SVGWriter) throws {
        let panel = layout.air
        let seconds = max(span.end.timeIntervalSince(span.start), 60)
        func x(_ date: Date) -> Double {
            panel.x + min(max(date.timeIntervalSince(span.start) / seconds, 0), 1) * panel.width
        }
        let highest = readings.air.compactMap(\.index).max() ?? 0
        let top = bands.first { $0.high >= highest && $0.high >= bands[2].high }?.high ?? bands.last!.high
        func y(_ index: Double) -> Double { panel.y + panel.height * (1 - min(index, Double(top)) / Double(top)) }
        try out.write(
            "<defs><pattern id=\"backfill\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\">"
                + "<path d=\"M0 4L4 0\" stroke=\"#555555\" stroke-width=\"0.6\"/></pattern></defs>\n")
        try out.write("<g id=\"air\">\n<g id=\"bands\" fill-opacity=\"0.25\">\n")
        for band in bands where band.low < top {
            let upper = y(Double(band.high))
            let lower = y(Double(band.low))
            try out.write(
                "<rect x=\"\(SVGWriter.number(panel.x))\" y=\"\(SVGWriter.number(upper))\" "
                    + "width=\"\(SVGWriter.number(panel.width))\" height=\"\(SVGWriter.number(lower - upper))\" "
                    + "fill=\"\(band.color)\"/>\n")
        }
        try out.write("</g>\n")
        let pmTop = max(35.4, (readings.air.compactMap(\.pm2_5) + readings.sensor.map(\.pm2_5)).max() ?? 0)
        func point(_ px: Double, _ value: Double) -> String {
            "\(SVGWriter.number(px)) \(SVGWriter.number(panel.y + panel.height * (1 - min(value, pmTop) / pmTop)))"
        }
        // The index, hour by hour, as a step line; back-filled hours hatched beneath it.
        var path = ""
        var pm = ""
        for hour in readings.air {
            let end = hour.start.addingTimeInterval(3600)
            guard end > span.start, hour.start < span.end, let index = hour.index else { continue }
            let (left, right, level) = (x(max(hour.start, span.start)), x(min(end, span.end)), y(Double(index)))
            path += "M\(SVGWriter.number(left)) \(SVGWriter.number(level))H\(SVGWriter.number(right))"
            if hour.backfilled {
                try out.write(
                    "<rect class=\"backfilled\" x=\"\(SVGWriter.number(left))\" y=\"\(SVGWriter.number(level))\" "
                        + "width=\"\(SVGWriter.number(right - left))\" "
                        + "height=\"\(SVGWriter.number(panel.y + panel.height - level))\" fill=\"url(#backfill)\"/>\n")
            }
            // The model's PM2.5 is an hour's value too: a step, like the index.
            if let value = hour.pm2_5 { pm += "M" + point(left, value) + "H\(SVGWriter.number(right))" }
        }
        if !path.isEmpty {
            try out.write("<path id=\"index\" d=\"\(path)\" stroke=\"#222222\" stroke-width=\"2\" fill=\"none\"/>\n")
        }
        if !pm.isEmpty {
            try out.write(
                "<path id=\"model-pm25\" d=\"\(pm)\" stroke=\"#1F5FBF\" stroke-width=\"1\" stroke-dasharray=\"3 2\" fill=\"none\"/>\n"
            )
        }
        let measured = readings.sensor.filter { $0.time >= span.start && $0.time <= span.end }
            .enumerated().map { ($0.offset == 0 ? "M" : "L") + point(x($0.element.time), $0.element.pm2_5) }.joined()
        if !measured.isEmpty {
            try out.write(
                "<path id=\"measured-pm25\" d=\"\(measured)\" stroke=\"#1F5FBF\" stroke-width=\"1.5\" fill=\"none\"/>\n"
            )
        }
        try axes(panel: panel, top: top, pmTop: pmTop, x: x, y: y, into: &out)
        try out.write("</g>\n")
    }

    /// Index labels at the left, PM2.5 at the right, local hours below.
    private func axes(
        panel: (x: Double, y: Double, width: Double, height: Double), top: Int, pmTop: Double, x: (Date) -> Double,
        y: (Double) -> Double, into out: inout SVGWriter
    ) throws {
        let size = layout.font * 0.7
        try out.text(scale == .eu ? "EAQI" : "AQI", x: panel.x - 2, y: panel.y - size * 1.1, size: size, anchor: "end")
        for value in [0, top / 2, top] {
            try out.text(
                "\(value)", x: panel.x - 2, y: y(Double(value)) + size / 3, size: size, anchor: "end",
                id: value == top ? "index-top" : nil)
        }
        try out.text("µg/m³", x: panel.x + panel.width + 2, y: panel.y - size * 1.1, size: size)
        try out.text(SVGWriter.number(pmTop), x: panel.x + panel.width + 2, y: panel.y + size, size: size)
        // Whole local hours, about five of them.
        let seconds = span.end.timeIntervalSince(span.start)
        let step = [3600.0, 7200, 10800, 21600, 43200, 86400].first { seconds / $0 <= 6 } ?? 86400
        let offset = Double(span.offset)
        var tick = ((span.start.timeIntervalSince1970 + offset) / step).rounded(.up) * step - offset
        while tick <= span.end.timeIntervalSince1970 {
            let date = Date(timeIntervalSince1970: tick)
            let label = String(TimeSpan.wall(date, span.offset(at: date)).suffix(5))
            try out.text(label, x: x(date), y: panel.y + panel.height + size * 1.2, size: size, anchor: "middle")
            tick += step
        }
    }
}
