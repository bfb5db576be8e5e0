import Foundation

/// The equal-angle grid that orders places in the file and bounds nearest-place search.
///
/// Rows run from -90° latitude northwards, columns from -180° longitude eastwards, each
/// `1 / cellsPerDegree` degrees wide. Pure functions, shared by builder and reader.
enum GridGeometry {
    static func row(latitude: Double, cellsPerDegree: Int) -> Int {
        min(180 * cellsPerDegree - 1, max(0, Int(((latitude + 90) * Double(cellsPerDegree)).rounded(.down))))
    }

    static func column(longitude: Double, cellsPerDegree: Int) -> Int {
        let columns = 360 * cellsPerDegree
        let raw = Int(((longitude + 180) * Double(cellsPerDegree)).rounded(.down))
        return ((raw % columns) + columns) % columns
    }

    static func cell(latitude: Double, longitude: Double, cellsPerDegree: Int) -> Int {
        row(latitude: latitude, cellsPerDegree: cellsPerDegree) * 360 * cellsPerDegree
            + column(longitude: longitude, cellsPerDegree: cellsPerDegree)
    }

    /// Rows and (possibly wrapping) column ranges of every cell that can hold a point
    /// within `radiusDegrees` of arc of (latitude, longitude). Near a pole, or when the
    /// radius is large, whole rows are covered, which keeps the search exact there.
    static func cells(
        around latitude: Double, _ longitude: Double, radiusDegrees: Double, cellsPerDegree: Int
    ) -> [(row: Int, columns: [ClosedRange<Int>])] {
        let columns = 360 * cellsPerDegree
        let lowRow = row(latitude: max(-90, latitude - radiusDegrees), cellsPerDegree: cellsPerDegree)
        let highRow = row(latitude: min(90, latitude + radiusDegrees), cellsPerDegree: cellsPerDegree)
        var spans: [ClosedRange<Int>]
        let φ = latitude * .pi / 180
        let r = radiusDegrees * .pi / 180
        if abs(latitude) + radiusDegrees >= 89.9 || radiusDegrees >= 90 {
            spans = [0...(columns - 1)]
        } else {
            // Largest longitude offset of a point within r of the centre.
            let ratio = min(1, sin(r) / cos(φ))
            let dλ = asin(ratio) * 180 / .pi
            if dλ >= 179.9 {
                spans = [0...(columns - 1)]
            } else {
                let west = Int(((longitude - dλ + 180) * Double(cellsPerDegree)).rounded(.down))
                let east = Int(((longitude + dλ + 180) * Double(cellsPerDegree)).rounded(.down))
                if west < 0 {
                    spans = [0...min(columns - 1, east), (west + columns)...(columns - 1)]
                } else if east >= columns {
                    spans = [west...(columns - 1), 0...(east - columns)]
                } else {
                    spans = [west...east]
                }
            }
        }
        return (lowRow...highRow).map { ($0, spans) }
    }
}
