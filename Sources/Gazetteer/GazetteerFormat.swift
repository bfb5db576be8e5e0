import Foundation

/// The on-disk layout of `gazetteer.bin`, shared by the builder and the reader.
///
/// Little-endian throughout. A 16-byte header (`magic`, `version`, section count) is
/// followed by a section table of 24-byte entries (tag, reserved, offset, length) and
/// the sections themselves, each 8-byte aligned. Readers ignore tags they do not know,
/// so later data (search names, postal codes) are new sections, not a new format.
///
/// Sections (record strides in bytes):
/// - `META` "key=value" lines: source, build date, counts.
/// - `STRS` one UTF-8 blob; strings elsewhere are (u32 offset, u32 length) into it.
/// - `CTRY` 32: iso2[2] iso3[3] pad[3], name ref, capital ref, u32 geonameid, u32 population.
/// - `ADM1` 20: code ref ("DE.16"), name ref, u16 country index, u16 pad.
/// - `TZNS` 8: time-zone name refs.
/// - `FEAT` 8: feature-code refs (PPL, PPLA, PPLC, ...).
/// - `PLAC` 32: u32 geonameid, i32 lat·1e5, i32 lon·1e5, u32 population, name ref,
///   u16 admin1 (0xFFFF none), u16 country (0xFFFF none), u16 timezone, u8 feature, u8 pad.
///   Places are sorted by grid cell, then by descending population.
/// - `XYZ ` 12: f32 unit vector per place (same order), for chord-distance comparisons.
/// - `GRID` u32 cellsPerDegree, then u32 start index per cell (row-major from -90° lat,
///   -180° lon) plus one end sentinel.
/// - `IDIX` 8: (u32 geonameid, u32 place index) sorted by id, for `place(id:)`.
enum GazetteerFormat {
    static let magic: [UInt8] = Array("AIRLOCGZ".utf8)
    static let version: UInt32 = 1
    static let headerSize = 16
    static let sectionEntrySize = 24
    static let none16: UInt16 = 0xFFFF
    static let coordinateScale = 100_000.0

    enum Tag: String, CaseIterable {
        case meta = "META"
        case strings = "STRS"
        case countries = "CTRY"
        case admin1 = "ADM1"
        case timezones = "TZNS"
        case features = "FEAT"
        case places = "PLAC"
        case vectors = "XYZ "
        case grid = "GRID"
        case idIndex = "IDIX"

        var code: UInt32 {
            var value: UInt32 = 0
            for (index, byte) in rawValue.utf8.enumerated() { value |= UInt32(byte) << (8 * UInt32(index)) }
            return value
        }
    }

    static let countryStride = 32
    static let admin1Stride = 20
    static let refStride = 8
    static let placeStride = 32
    static let vectorStride = 12
    static let idStride = 8

    /// Grid resolution: 2 cells per degree (0.5°) keeps a cell to a few hundred places in
    /// the densest regions while the cell table stays at 1 MB.
    static let defaultCellsPerDegree = 2
}

/// Unit vector of a coordinate on the sphere; chord length between two of these is a
/// monotonic function of great-circle distance, so comparisons need no trigonometry.
@inline(__always)
func unitVector(latitude: Double, longitude: Double) -> (Double, Double, Double) {
    let φ = latitude * .pi / 180
    let λ = longitude * .pi / 180
    return (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
}
