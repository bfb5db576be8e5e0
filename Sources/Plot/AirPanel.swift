import AirQuality
import Foundation

/// The day's air over time, on one index and its category bands: the model's index hour
/// by hour and the measured index reading by reading, each a step line of its own,
/// back-filled hours marked, the time axis in the place's local time, and a legend for
/// every colour, line and hatching drawn.
///
/// Contract: the index axis runs from 0 to the top of the highest band either line reaches
/// (at least the third: 150 on the US scale, 60 on the European; open-ended above the
/// last band, up to the highest value). Both lines are on the plot's scale (AirInForce).
/// A reading holds until the next one, for at most 10 minutes, so a gap in the readings
/// is a gap in the line, never a diagonal across it. Back-filled hours are shaded with a
/// hatch (they were fetched later, from the service's history).
struct AirPanel {
    let readings: AirInForce
    let span: TimeSpan
    let scale: AQIScale
    /// The measured index as steps (``measuredSteps``), worked out once.
    let steps: [(from: Date, to: Date, index: Int)]
    /// The model's hours drawn: those in the span with an index.
    let modelHours: [AirInForce.Hour]
    /// The index axis's top.
    let top: Int
    /// The legend's items in order, each a swatch and its label.
    let legendItems: [(swatch: Swatch, label: String)]

    /// What a legend item's swatch is.
    enum Swatch {
        case line(String)
        case box(String, opacity: String)
    }

    init(readings: AirInForce, span: TimeSpan, scale: AQIScale) {
        (self.readings, self.span, self.scale) = (readings, span, scale)
        steps = Self.measuredSteps(readings, span: span)
        let bands = Self.bands(scale)
        let highest = (readings.air.compactMap(\.index) + steps.map(\.index)).max() ?? 0
        let top = bands.first { $0.high >= highest && $0.high >= bands[2].high }?.high ?? max(highest, bands.last!.high)
        modelHours = readings.air.filter {
            $0.start.addingTimeInterval(3600) > span.start && $0.start < span.end && $0.index != nil
        }
        var items: [(swatch: Swatch, label: String)] = []
        if !modelHours.isEmpty { items.append((.line(Self.modelColor), "model")) }
        if !steps.isEmpty { items.append((.line(Self.measuredColor), "measured")) }
        if modelHours.contains(where: \.backfilled) {
            items.append((.box("url(#backfill)", opacity: "1"), "back-filled"))
        }
        for band in bands where band.low < top { items.append((.box(band.color, opacity: "0.25"), band.name)) }
        (self.top, legendItems) = (top, items)
    }
    static let modelColor = "#222222"
    static let measuredColor = "#1F5FBF"

    var bands: [(low: Int, high: Int, color: String, name: String)] { Self.bands(scale) }

    static func bands(_ scale: AQIScale) -> [(low: Int, high: Int, color: String, name: String)] {
        scale == .eu
            ? [(0, 20), (20, 40), (40, 60), (60, 80), (80, 100), (100, 150)].map {
                let band = EuropeanAQICategory(index: $0.0 + 1)
                return ($0.0, $0.1, band.color, band.name)
            }
            : [(0, 50), (51, 100), (101, 150), (151, 200), (201, 300), (301, 500)].map {
                let category = AQICategory(aqi: $0.0)
                return ($0.0, $0.1, category.color, $0.0 == 101 ? "USG" : category.name)
            }
    }

    /// The measured readings in the span as steps: from each reading to the next, at most
    /// ``AirInForce/measuredFor``.
    static func measuredSteps(_ readings: AirInForce, span: TimeSpan) -> [(from: Date, to: Date, index: Int)] {
        let inSpan = readings.sensor.filter { $0.time >= span.start && $0.time <= span.end }
        return inSpan.enumerated().compactMap { offset, reading in
            guard let index = reading.index else { return nil }
            let held = reading.time.addingTimeInterval(AirInForce.measuredFor)
            let next = offset + 1 < inSpan.count ? min(inSpan[offset + 1].time, held) : held
            return (reading.time, min(max(next, reading.time.addingTimeInterval(1)), span.end), index)
        }
    }

    func draw(into out: inout SVGWriter, layout: PlotLayout) throws {
        let panel = layout.air
        let seconds = max(span.end.timeIntervalSince(span.start), 60)
        func x(_ date: Date) -> Double {
            panel.x + min(max(date.timeIntervalSince(span.start) / seconds, 0), 1) * panel.width
        }
        func y(_ index: Double) -> Double { panel.y + panel.height * (1 - min(index, Double(top)) / Double(top)) }
        try out.write(
            "<defs><pattern id=\"backfill\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\">"
                + "<path d=\"M0 4L4 0\" stroke=\"#555555\" stroke-width=\"0.6\"/></pattern></defs>\n")
        try out.write("<g id=\"air\">\n<g id=\"bands\" fill-opacity=\"0.25\">\n")
        for (number, band) in bands.enumerated() where band.low < top {
            // The last band is open-ended: it reaches the axis's top.
            let upper = y(Double(number == bands.count - 1 ? top : band.high))
            let lower = y(Double(band.low))
            try out.write(
                "<rect x=\"\(SVGWriter.number(panel.x))\" y=\"\(SVGWriter.number(upper))\" "
                    + "width=\"\(SVGWriter.number(panel.width))\" height=\"\(SVGWriter.number(lower - upper))\" "
                    + "fill=\"\(band.color)\"/>\n")
        }
        try out.write("</g>\n")
        // The model's index, hour by hour, as a step line; back-filled hours hatched beneath it.
        var model = ""
        for hour in modelHours {
            guard let index = hour.index else { continue }
            let end = hour.start.addingTimeInterval(3600)
            let (left, right, level) = (x(max(hour.start, span.start)), x(min(end, span.end)), y(Double(index)))
            model += "M\(SVGWriter.number(left)) \(SVGWriter.number(level))H\(SVGWriter.number(right))"
            if hour.backfilled {
                try out.write(
                    "<rect class=\"backfilled\" x=\"\(SVGWriter.number(left))\" y=\"\(SVGWriter.number(level))\" "
                        + "width=\"\(SVGWriter.number(right - left))\" "
                        + "height=\"\(SVGWriter.number(panel.y + panel.height - level))\" fill=\"url(#backfill)\"/>\n")
            }
        }
        if !model.isEmpty {
            try out.write(
                "<path id=\"model-index\" d=\"\(model)\" stroke=\"\(Self.modelColor)\" stroke-width=\"2\" "
                    + "fill=\"none\"/>\n")
        }
        // The measured index: steps joined while readings follow each other, a gap otherwise.
        var measured = ""
        var end: Date?
        for step in steps {
            let level = SVGWriter.number(y(Double(step.index)))
            measured +=
                (end == step.from ? "V\(level)" : "M\(SVGWriter.number(x(step.from))) \(level)")
                + "H\(SVGWriter.number(x(step.to)))"
            end = step.to
        }
        if !measured.isEmpty {
            try out.write(
                "<path id=\"measured-index\" d=\"\(measured)\" stroke=\"\(Self.measuredColor)\" "
                    + "stroke-width=\"2\" fill=\"none\"/>\n")
        }
        try axes(panel: panel, size: layout.font * PlotLayout.smallestRatio, x: x, y: y, into: &out)
        try legend(layout, into: &out)
        try out.write("</g>\n")
    }

    /// Index labels at the left, local times below.
    private func axes(
        panel: (x: Double, y: Double, width: Double, height: Double), size: Double, x: (Date) -> Double,
        y: (Double) -> Double, into out: inout SVGWriter
    ) throws {
        try out.text(scale == .eu ? "EAQI" : "AQI", x: panel.x - 2, y: panel.y - size * 1.1, size: size, anchor: "end")
        for value in [0, top / 2, top] {
            try out.text(
                "\(value)", x: panel.x - 2, y: y(Double(value)) + size / 3, size: size, anchor: "end",
                id: value == top ? "index-top" : nil)
        }
        // About five ticks: every 15 or 30 minutes in a short window, else whole hours.
        let seconds = span.end.timeIntervalSince(span.start)
        let step = [900.0, 1800, 3600, 7200, 10800, 21600, 43200, 86400].first { seconds / $0 <= 6 } ?? 86400
        let offset = Double(span.offset)
        var tick = ((span.start.timeIntervalSince1970 + offset) / step).rounded(.up) * step - offset
        while tick <= span.end.timeIntervalSince1970 {
            let date = Date(timeIntervalSince1970: tick)
            let label = String(TimeSpan.wall(date, span.offset(at: date)).suffix(5))
            try out.text(
                label, x: x(date), y: panel.y + panel.height + size * 1.2, size: size, anchor: "middle",
                id: nil, fill: nil, className: "tick")
            tick += step
        }
    }

    /// Under the time axis, in the rows the layout wrapped it into: the lines drawn, the
    /// hatching, the bands shown.
    private func legend(_ layout: PlotLayout, into out: inout SVGWriter) throws {
        let size = layout.font * PlotLayout.smallestRatio
        try out.write("<g id=\"legend\">\n")
        for ((swatch, label), place) in zip(legendItems, layout.legend) {
            let (x, baseline) = (SVGWriter.number(place.x), place.baseline)
            switch swatch {
            case .line(let color):
                try out.write(
                    "<path d=\"M\(x) \(SVGWriter.number(baseline - size * 0.35))h\(SVGWriter.number(size * 1.4))\" "
                        + "stroke=\"\(color)\" stroke-width=\"2\"/>\n")
            case .box(let fill, let opacity):
                try out.write(
                    "<rect x=\"\(x)\" y=\"\(SVGWriter.number(baseline - size * 0.8))\" "
                        + "width=\"\(SVGWriter.number(size * 1.4))\" height=\"\(SVGWriter.number(size * 0.9))\" "
                        + "fill=\"\(fill)\" fill-opacity=\"\(opacity)\" stroke=\"#999999\" stroke-width=\"0.5\"/>\n")
            }
            try out.text(
                label, x: place.x + size * 1.8, y: baseline, size: size, id: nil, fill: nil, className: "legend")
        }
        try out.write("</g>\n")
    }
}
