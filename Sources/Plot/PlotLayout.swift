import Foundation
import Geo

/// Where things go on the figure: the title band, the track panel (a local equirectangular
/// projection fitted to the track's bounding box), the air panel below it, and the legend
/// (wrapped onto as many rows as the width needs) and attribution at the bottom.
///
/// Contract: pure arithmetic on the requested size. The projection keeps the map's aspect
/// (east–west distances scaled by the cosine of the middle latitude), centred in its panel;
/// text sizes follow the figure's size, so a 250×122 e-paper and an 800×480 screen both read,
/// and never fall below `smallestText` when one is asked for (a page that shows the figure
/// at its own size). Legend items never run past the right edge: a row full, the next
/// item starts a new one, and the air panel gives up the height.
struct PlotLayout: Sendable {
    let width: Double
    let height: Double
    let font: Double
    let track: (x: Double, y: Double, width: Double, height: Double)
    let air: (x: Double, y: Double, width: Double, height: Double)
    /// Where each legend item's swatch starts, and its label's baseline, in the order given.
    let legend: [(x: Double, baseline: Double)]
    /// The attribution's lines (split at " · " when one line would not fit), each with its
    /// baseline, right-aligned at ``attributionRight``.
    let attribution: [(text: String, baseline: Double)]
    /// Where the attribution's lines end.
    var attributionRight: Double { width - font * 0.5 }

    /// The smallest text on the figure, relative to ``font`` (axis labels, legend, attribution).
    static let smallestRatio = 0.7

    init(width: Int, height: Int, smallestText: Double? = nil, legend labels: [String] = [], attribution: String = "") {
        self.width = Double(width)
        self.height = Double(height)
        font = max(max(6, min(14, Double(min(width, height)) / 34)), (smallestText ?? 0) / Self.smallestRatio)
        let size = font * Self.smallestRatio
        let margin = font * 0.8
        // The legend, left to right from the air panel's left edge, wrapped at the right margin.
        let side = font * 2.4
        var items: [(x: Double, row: Int)] = []
        var (x, row) = (side, 0)
        for label in labels {
            let wide = Self.legendWidth(label, size: size)
            if x > side, x + wide - size * 1.2 > self.width - margin { (x, row) = (side, row + 1) }
            items.append((x, row))
            x += wide
        }
        let rows = Double(max(row, 0))
        let credits =
            Self.textWidth(attribution, size: size) > self.width - font
            ? attribution.components(separatedBy: " · ") : [attribution]
        let top = font * 2.6
        // The time labels, the legend's rows, the attribution's lines.
        let bottom = font * 3.4 + (rows + Double(credits.count - 1)) * size * 1.5
        let usable = self.height - top - bottom
        track = (margin, top, self.width - 2 * margin, usable * 0.6 - margin)
        // Room at the left for the index labels.
        air = (side, top + usable * 0.6 + margin, self.width - side - margin, usable * 0.4 - margin)
        let first = air.y + air.height + size * 2.8
        legend = items.map { ($0.x, first + Double($0.row) * size * 1.5) }
        let last = self.height - font * 0.5
        self.attribution = credits.enumerated().map { line, text in
            (text, last - Double(credits.count - 1 - line) * size * 1.3)
        }
    }

    /// A text's width, estimated from a sans-serif's average advance (generous: nothing is
    /// measured, the viewer's font is its own).
    static func textWidth(_ text: String, size: Double) -> Double { size * 0.62 * Double(text.count) }

    /// A legend item's advance: its swatch, the gap, its label, and the space before the next.
    static func legendWidth(_ label: String, size: Double) -> Double { size * 3.0 + textWidth(label, size: size) }

    /// The track panel's projection for a bounding box.
    struct Projection: Sendable {
        let west: Double
        let north: Double
        let scale: Double
        let cosLatitude: Double
        let offset: (x: Double, y: Double)

        init(
            south: Double, west: Double, north: Double, east: Double,
            panel: (x: Double, y: Double, width: Double, height: Double)
        ) {
            cosLatitude = cos((south + north) / 2 * .pi / 180)
            // A track standing still has no extent: 200 m around it.
            let spanX = max((east - west) * cosLatitude, 0.0018)
            let spanY = max(north - south, 0.0018)
            scale = min(panel.width / spanX, panel.height / spanY)
            self.west = west - (spanX / cosLatitude - (east - west)) / 2
            self.north = north + (spanY - (north - south)) / 2
            offset = (
                panel.x + (panel.width - spanX * scale) / 2, panel.y + (panel.height - spanY * scale) / 2
            )
        }

        func point(_ coordinate: Coordinate) -> (x: Double, y: Double) {
            (
                offset.x + (coordinate.longitude - west) * cosLatitude * scale,
                offset.y + (north - coordinate.latitude) * scale
            )
        }

        /// Metres per pixel at the middle latitude.
        var metresPerPixel: Double { 111_195 / scale }
    }

    /// A scale bar's length: 1, 2 or 5 × 10ⁿ metres, the longest that fits in `pixels`.
    static func scaleBar(metresPerPixel: Double, pixels: Double) -> (metres: Double, label: String) {
        let most = metresPerPixel * pixels
        var metres = 1.0
        for exponent in 0...7 {
            for step in [1.0, 2, 5] {
                let candidate = step * pow(10, Double(exponent))
                if candidate <= most { metres = candidate }
            }
        }
        let label = metres >= 1000 ? "\(SVGWriter.number(metres / 1000)) km" : "\(Int(metres)) m"
        return (metres, label)
    }
}
