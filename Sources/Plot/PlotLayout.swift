import Foundation
import Geo

/// Where things go on the figure: the title band, the track panel (a local equirectangular
/// projection fitted to the track's bounding box), the air panel below it, and the legend
/// and attribution at the bottom.
///
/// Contract: pure arithmetic on the requested size. The projection keeps the map's aspect
/// (east–west distances scaled by the cosine of the middle latitude), centred in its panel;
/// text sizes follow the figure's size, so a 250×122 e-paper and an 800×480 screen both read.
struct PlotLayout: Sendable {
    let width: Double
    let height: Double
    let font: Double
    let track: (x: Double, y: Double, width: Double, height: Double)
    let air: (x: Double, y: Double, width: Double, height: Double)

    init(width: Int, height: Int) {
        self.width = Double(width)
        self.height = Double(height)
        font = max(6, min(14, Double(min(width, height)) / 34))
        let top = font * 2.6
        // The time labels, the legend, the attribution.
        let bottom = font * 3.4
        let usable = self.height - top - bottom
        let margin = font * 0.8
        track = (margin, top, self.width - 2 * margin, usable * 0.6 - margin)
        // Room at the left for the index labels.
        let side = font * 2.4
        air = (side, top + usable * 0.6 + margin, self.width - side - margin, usable * 0.4 - margin)
    }

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
