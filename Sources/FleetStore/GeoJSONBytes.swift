import Foundation
import Geo

/// The fleet's GeoJSON as it is written: bytes appended straight from libpq's cells, so a
/// day of one-second fixes (86,400 positions) costs no Swift string per coordinate.
///
/// Contract: the features come out in the order they are given, separated by `,\n`; a
/// track run of one point is a Point whose properties (the row as published) are filled in
/// afterwards by ``fill(_:properties:)``, all others are LineStrings with the export's
/// properties (`kind`, `segment`, `start`, `end`, `points`).
struct GeoJSONBytes {
    /// A run of one point, waiting for its row.
    struct Lone {
        var incarnation: String
        var id: String
        var offset: Int
    }

    private(set) var bytes: [UInt8] = []
    private var features = 0

    init() { bytes.reserveCapacity(1 << 16) }

    var data: Data { Data(bytes) }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func append(_ cell: UnsafePointer<CChar>) {
        cell.withMemoryRebound(to: UInt8.self, capacity: strlen(cell)) {
            bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: strlen(cell)))
        }
    }

    /// A whole feature.
    mutating func feature(_ text: String) {
        append(features == 0 ? text : ",\n" + text)
        features += 1
    }

    /// The track rows of `cells` (incarnation, segment, epoch, longitude, latitude,
    /// altitude, id; in time order) as a feature per run; returns the lone points.
    mutating func track(_ cells: PostgresCells) -> [Lone] {
        var lones: [Lone] = []
        var start = 0
        for row in 0...cells.rows where row == cells.rows || (row > start && !sameRun(cells, row, start)) {
            guard row > start else { continue }
            if row - start == 1 {
                append(features == 0 ? "" : ",\n")
                features += 1
                append("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":")
                position(cells, start)
                append("},\"properties\":")
                lones.append(
                    Lone(
                        incarnation: cells.string(start, 0) ?? "", id: cells.string(start, 6) ?? "", offset: bytes.count
                    ))
                append("}")
            } else {
                append(features == 0 ? "" : ",\n")
                features += 1
                append("{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[")
                for index in start..<row {
                    if index > start { bytes.append(UInt8(ascii: ",")) }
                    position(cells, index)
                }
                append("]},\"properties\":{\"kind\":\"track\",\"segment\":")
                append(cells.string(start, 1) ?? "null")
                append(
                    ",\"start\":\"\(time(cells, start))\",\"end\":\"\(time(cells, row - 1))\",\"points\":\(row - start)}}"
                )
            }
            start = row
        }
        return lones
    }

    /// Puts each lone point's properties in its place (from the last, so offsets hold).
    mutating func fill(_ lones: [Lone], properties: (Lone) -> String) {
        for lone in lones.reversed() {
            bytes.insert(contentsOf: Array(properties(lone).utf8), at: lone.offset)
        }
    }

    private func sameRun(_ cells: PostgresCells, _ a: Int, _ b: Int) -> Bool {
        equal(cells.text(a, 0), cells.text(b, 0)) && equal(cells.text(a, 1), cells.text(b, 1))
    }

    private func equal(_ a: UnsafePointer<CChar>?, _ b: UnsafePointer<CChar>?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?): return strcmp(a, b) == 0
        default: return false
        }
    }

    /// `[lon,lat]` or `[lon,lat,alt]`: PostgreSQL's shortest round-trip text of each.
    private mutating func position(_ cells: PostgresCells, _ row: Int) {
        bytes.append(UInt8(ascii: "["))
        if let longitude = cells.text(row, 3) { append(longitude) }
        bytes.append(UInt8(ascii: ","))
        if let latitude = cells.text(row, 4) { append(latitude) }
        if let altitude = cells.text(row, 5) {
            bytes.append(UInt8(ascii: ","))
            append(altitude)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private func time(_ cells: PostgresCells, _ row: Int) -> String {
        cells.string(row, 2).flatMap(Double.init).map { UTCTime.iso8601(Date(timeIntervalSince1970: $0)) } ?? ""
    }
}
