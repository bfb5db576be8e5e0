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
/// - `CTRY` 48: iso2[2] iso3[3] pad[3], name ref, capital ref, u32 geonameid, u32 population,
///   i32 lat·1e5, i32 lon·1e5 (centre of its places), u16 timezone, u16 pad, u32 pad.
/// - `ADM1` 48: code ref ("DE.16"), name ref, abbreviation ref ("BY", ISO 3166-2), u16
///   country, u16 timezone, u32 geonameid, i32 lat·1e5, i32 lon·1e5 (centre of its
///   places), u32 population (sum of its places), u32 pad.
/// - `TZNS` 8: time-zone name refs.
/// - `FEAT` 8: feature-code refs (PPL, PPLA, PPLC, ...).
/// - `PLAC` 32: u32 geonameid, i32 lat·1e5, i32 lon·1e5, u32 population, name ref,
///   u16 admin1 (0xFFFF none), u16 country (0xFFFF none), u16 timezone, u8 feature, u8 pad.
///   Places are sorted by 0.5° grid cell, then by descending population, so neighbours
///   are near each other in the file.
/// - `KDTR` the k-d tree over the places' unit vectors (layout in ``PlaceTree``).
/// - `SEED` u32 cellsPerDegree, then per grid cell (row-major from -90° lat, -180° lon)
///   the tree slot of the place nearest the cell's centre: the nearest-place search's
///   starting bound; bit 31 set when that place is the nearest for the whole cell.
/// - `IDIX` 8: (u32 geonameid, u32 place index) sorted by id, for `place(id:)`.
/// - `KEYS` one blob of folded search keys (``SearchKey``), each stored once.
/// - `SIDX` 16: search entries sorted by key, then population (descending): u32 key
///   offset into `KEYS`, u32 target index, u32 offset into `STRS` of the name as written,
///   u8 key length, u8 name length, u8 kind byte (bits 0-1 target kind: 0 place, 1
///   admin-1, 2 country; bit 2 admin seat, bit 3 capital, bit 4 a place with no other
///   name, bit 6 an alternate name, bit 7 a code that matches only exactly), u8 the
///   target's population byte (8·log2 of population + 1). No ranking weight is stored:
///   ``RankingWeights`` adds them when searching.
/// - `SHOT` 16: "hot" prefixes whose entry range is large: u32 prefix offset into `KEYS`,
///   u32 prefix length, u32 first record in `STOP`, u32 record count; sorted by prefix.
/// - `STOP` 4: per hot prefix and per class (the kind byte's bits 0-6), a header record
///   (u8 class, u24 count), then the class's best `count` entries by population: u24
///   entry index, u8 population byte.
/// - `KTRI` the top of the key trie, for the typo walk (layout in ``KeyTrie``); optional.
/// - `POST` 32: postal codes sorted by country, then code bytes: u16 country, u16 admin-1
///   (0xFFFF none), code ref, place-name ref, i32 lat·1e5, i32 lon·1e5, u32 flags (bit 0:
///   the coordinates are derived, from the most populous place of that name).
/// - `PFMT` 24 per country (same order as `CTRY`): GeoNames postal format ref ("#####"),
///   regex ref, u32 offline code count, u32 pad.
enum GazetteerFormat {
    static let magic: [UInt8] = Array("AIRLOCGZ".utf8)
    static let version: UInt32 = 4
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
        case tree = "KDTR"
        case seeds = "SEED"
        case postalCodes = "POST"
        case postalFormats = "PFMT"
        case idIndex = "IDIX"
        case keys = "KEYS"
        case searchEntries = "SIDX"
        case hotPrefixes = "SHOT"
        case hotTops = "STOP"
        case keyTrie = "KTRI"

        var code: UInt32 {
            var value: UInt32 = 0
            for (index, byte) in rawValue.utf8.enumerated() { value |= UInt32(byte) << (8 * UInt32(index)) }
            return value
        }
    }

    static let countryStride = 48
    static let admin1Stride = 48
    static let entryStride = 16
    static let postalStride = 32
    static let postalFormatStride = 24
    static let hotStride = 16
    /// A prefix whose entry range is longer than this gets its best entries precomputed,
    /// so that a two-letter query does not scan tens of thousands of entries.
    static let hotThreshold = 1024
    /// How many best entries a hot prefix keeps per class.
    static let hotTopCount = 64
    static let refStride = 8
    static let placeStride = 32
    static let idStride = 8

    /// Resolution of the nearest-place seeds: 4 cells per degree (0.25°, 4 MB), fine
    /// enough that most cells away from towns are decided outright.
    static let seedCellsPerDegree = 4

    /// Grid resolution of the place order: 2 cells per degree (0.5°).
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
