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
}
