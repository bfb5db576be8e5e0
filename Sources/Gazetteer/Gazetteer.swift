import Foundation
import Geo
import Platform

/// The offline world gazetteer: GeoNames populated places with their admin-1 region,
/// country and time zone, memory-mapped from `gazetteer.bin`.
///
/// Contract: loading validates the header and every section's size, so a damaged file is
/// a ``GazetteerError/corrupt(path:reason:)`` at load time, never a crash later. After
/// that the value is immutable and safe to share between threads; lookups allocate
/// nothing but their results.
public final class Gazetteer: Sendable {
    private let file: MappedFile
    /// Damage met in this file's data (``damageDetected``).
    public let damage: GazetteerDamage
    private let path: String
    let strings: SectionReader
    let countries: SectionReader
    let admin1: SectionReader
    let timezones: SectionReader
    let features: SectionReader
    let places: SectionReader
    let tree: PlaceTree
    /// Per 0.5° cell, the tree slot of the place nearest its centre (section `SEED`).
    let seeds: SectionReader
    private let seedsPerDegree: Int
    let ids: SectionReader
    /// The name index behind ``search(_:options:)``.
    let index: SearchIndex
    /// Postal codes (`POST`) and per-country formats (`PFMT`).
    let postal: SectionReader
    let postalFormats: SectionReader
    /// Admin-1 and country short codes for qualifiers, built on first use.
    let shortAdmin1Codes = ShortCodes()
    let shortCountryCodes = ShortCodes()
    /// Number of places in the file.
    public let count: Int
    /// The `META` section as key/value pairs (source, built, places, attribution, ...).
    public let metadata: [String: String]

    /// Maps and validates the file at `path`.
    public init(path: String) throws(GazetteerError) {
        let file: MappedFile
        do { file = try MappedFile(path: path) } catch { throw .unreadable(path: path, reason: error.reason) }
        let bytes = file.bytes
        func corrupt(_ reason: String) -> GazetteerError { .corrupt(path: path, reason: reason) }
        guard !bytes.isEmpty else { throw corrupt("the file is empty") }
        guard bytes.count >= GazetteerFormat.headerSize,
            Array(bytes[0..<8]) == GazetteerFormat.magic
        else { throw corrupt("not an airloc gazetteer file") }
        let damage = GazetteerDamage(file: path)
        self.damage = damage
        let header = SectionReader(base: bytes.baseAddress!, count: bytes.count, damage: damage)
        guard header.u32(8) == GazetteerFormat.version else {
            throw .otherVersion(path: path, version: header.u32(8), supported: GazetteerFormat.version)
        }
        let sectionCount = Int(header.u32(12))
        guard sectionCount < 256,
            GazetteerFormat.headerSize + sectionCount * GazetteerFormat.sectionEntrySize <= bytes.count
        else { throw corrupt("truncated section table") }
        var found: [UInt32: SectionReader] = [:]
        for index in 0..<sectionCount {
            let entry = GazetteerFormat.headerSize + index * GazetteerFormat.sectionEntrySize
            let tag = header.u32(entry)
            let offset = UInt64(header.u32(entry + 8)) | UInt64(header.u32(entry + 12)) << 32
            let length = UInt64(header.u32(entry + 16)) | UInt64(header.u32(entry + 20)) << 32
            guard offset <= UInt64(bytes.count), length <= UInt64(bytes.count) - offset else {
                throw corrupt("section \(index) lies outside the file (truncated download?)")
            }
            found[tag] = SectionReader(base: bytes.baseAddress! + Int(offset), count: Int(length), damage: damage)
        }
        func section(_ tag: GazetteerFormat.Tag, stride: Int) throws(GazetteerError) -> SectionReader {
            guard let reader = found[tag.code] else { throw corrupt("section \(tag.rawValue) is missing") }
            guard reader.count % stride == 0 else { throw corrupt("section \(tag.rawValue) has a partial record") }
            return reader
        }
        // Optional (files built before it lack it), but a damaged one is refused.
        func keyTrie(_ section: SectionReader?) throws(GazetteerError) -> KeyTrie? {
            guard let section else { return nil }
            guard let trie = KeyTrie(section: section) else { throw corrupt("section KTRI has the wrong size") }
            return trie
        }
        strings = try section(.strings, stride: 1)
        countries = try section(.countries, stride: GazetteerFormat.countryStride)
        admin1 = try section(.admin1, stride: GazetteerFormat.admin1Stride)
        timezones = try section(.timezones, stride: GazetteerFormat.refStride)
        features = try section(.features, stride: GazetteerFormat.refStride)
        places = try section(.places, stride: GazetteerFormat.placeStride)
        ids = try section(.idIndex, stride: GazetteerFormat.idStride)
        index = SearchIndex(
            entries: try section(.searchEntries, stride: GazetteerFormat.entryStride),
            keys: try section(.keys, stride: 1), hot: try section(.hotPrefixes, stride: GazetteerFormat.hotStride),
            tops: try section(.hotTops, stride: 4), trie: try keyTrie(found[GazetteerFormat.Tag.keyTrie.code]))
        count = places.count / GazetteerFormat.placeStride
        postal = try section(.postalCodes, stride: GazetteerFormat.postalStride)
        postalFormats = try section(.postalFormats, stride: GazetteerFormat.postalFormatStride)
        guard
            postalFormats.count == countries.count / GazetteerFormat.countryStride * GazetteerFormat.postalFormatStride
        else { throw corrupt("postal formats do not match the countries") }
        guard ids.count / GazetteerFormat.idStride == count else {
            throw corrupt("place and id sections disagree on the number of places")
        }
        guard let tree = PlaceTree(section: try section(.tree, stride: 4)), tree.count == count else {
            throw corrupt("the place tree does not match the places")
        }
        self.tree = tree
        let seedSection = try section(.seeds, stride: 4)
        let perDegree = seedSection.count >= 4 ? Int(seedSection.u32(0)) : 0
        guard (1...20).contains(perDegree), seedSection.count == 4 + 180 * 360 * perDegree * perDegree * 4 else {
            throw corrupt("the nearest-place seeds do not match the grid")
        }
        seedsPerDegree = perDegree
        seeds = SectionReader(base: seedSection.base + 4, count: seedSection.count - 4, damage: damage)
        let meta = found[GazetteerFormat.Tag.meta.code].map {
            String(decoding: $0.bytes(at: 0, count: $0.count), as: UTF8.self)
        }
        var pairs: [String: String] = [:]
        for line in (meta ?? "").split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            pairs[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        metadata = pairs
        self.path = path
        self.file = file
    }

    /// Where the data was loaded from.
    public var location: String { path }

    // MARK: - Records

    func string(_ reader: SectionReader, at offset: Int) -> String {
        let start = Int(reader.u32(offset))
        let length = Int(reader.u32(offset + 4))
        guard start <= strings.count, length <= strings.count - start else {
            damage.note()
            return ""
        }
        return String(decoding: strings.bytes(at: start, count: length), as: UTF8.self)
    }

    func countryFields(_ index: Int) -> (code: String, name: String) {
        guard index < countries.count / GazetteerFormat.countryStride else { return ("", "") }
        let base = index * GazetteerFormat.countryStride
        let code = String(
            decoding: countries.bytes(at: base, count: 2), as: UTF8.self)
        return (code, string(countries, at: base + 8))
    }

    /// The name of admin-1 region `index` alone (no ``Place`` built); "" out of range.
    func admin1Name(_ index: Int) -> String {
        guard index < admin1.count / GazetteerFormat.admin1Stride else { return "" }
        return string(admin1, at: index * GazetteerFormat.admin1Stride + 8)
    }

    func timezone(_ index: Int) -> String { indexedString(timezones, index) }

    private func indexedString(_ reader: SectionReader, _ index: Int) -> String {
        guard index < reader.count / GazetteerFormat.refStride else { return "" }
        return string(reader, at: index * GazetteerFormat.refStride)
    }

    /// The place stored at position `index` (0..<count).
    public func place(at index: Int) -> Place {
        // An index from a damaged tree or search entry: noted, and a real place in its
        // stead (the command reports the damage instead of this answer).
        var index = index
        if index < 0 || index >= count {
            damage.note()
            index = 0
        }
        let base = index * GazetteerFormat.placeStride
        let lat = Double(places.i32(base + 4)) / GazetteerFormat.coordinateScale
        let lon = Double(places.i32(base + 8)) / GazetteerFormat.coordinateScale
        let country = countryFields(Int(places.u16(base + 26)))
        return Place(
            id: Int(places.u32(base)), name: string(places, at: base + 16),
            coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
            admin1: admin1Name(Int(places.u16(base + 24))), country: country.name, countryCode: country.code,
            timezone: indexedString(timezones, Int(places.u16(base + 28))),
            population: Int(places.u32(base + 12)),
            featureCode: indexedString(features, Int(places.u8(base + 30))))
    }

    /// The place with GeoNames id `id`, if the data holds it.
    public func place(id: Int) -> Place? {
        guard id >= 0, id <= Int(UInt32.max) else { return nil }
        let target = UInt32(id)
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            let value = ids.u32(mid * GazetteerFormat.idStride)
            if value < target { low = mid + 1 } else { high = mid }
        }
        guard low < count, ids.u32(low * GazetteerFormat.idStride) == target else { return nil }
        return place(at: Int(ids.u32(low * GazetteerFormat.idStride + 4)))
    }

    /// English name of the country with ISO alpha-2 `code` (any case), if known.
    public func countryName(code: String) -> String? {
        let upper = code.uppercased()
        for index in 0..<(countries.count / GazetteerFormat.countryStride) {
            let fields = countryFields(index)
            if fields.code == upper { return fields.name }
        }
        return nil
    }

    /// Only the name of the place at `index` (cheaper than ``place(at:)`` for scans).
    func name(at index: Int) -> String { string(places, at: index * GazetteerFormat.placeStride + 16) }

    func population(at index: Int) -> Int { Int(places.u32(index * GazetteerFormat.placeStride + 12)) }

    func coordinate(at index: Int) -> Coordinate {
        let base = index * GazetteerFormat.placeStride
        return Coordinate(
            uncheckedLatitude: Double(places.i32(base + 4)) / GazetteerFormat.coordinateScale,
            longitude: Double(places.i32(base + 8)) / GazetteerFormat.coordinateScale)
    }

    // MARK: - Reverse geocoding

    /// The populated place nearest to `coordinate` (great-circle distance); nil only
    /// for an empty gazetteer. Exact: the tree search visits every subtree that could
    /// hold a nearer place.
    public func nearest(to coordinate: Coordinate) -> NearestPlace? {
        guard let index = nearestIndex(to: coordinate) else { return nil }
        return NearestPlace(place: place(at: index), from: coordinate)
    }

    /// The index (for ``place(at:)``) of the place nearest to `coordinate`, without
    /// building the ``Place``: for callers that look up many points and need few names.
    /// Among places at exactly the same distance, the lowest index (the most populous
    /// of its grid cell) wins, so the answer does not depend on the tree's shape.
    public func nearestIndex(to coordinate: Coordinate) -> Int? {
        let cell = GridGeometry.cell(
            latitude: coordinate.latitude, longitude: coordinate.longitude, cellsPerDegree: seedsPerDegree)
        var seed: Int?
        if cell < seeds.count / 4 {
            let value = seeds.u32(cell * 4)
            let slot = Int(value & ~PlaceTree.decidedFlag)
            // Decided at build time: this place is the nearest anywhere in the cell.
            if value & PlaceTree.decidedFlag != 0, slot < tree.count { return tree.place(atSlot: slot) }
            seed = slot
        }
        let q = unitVector(latitude: coordinate.latitude, longitude: coordinate.longitude)
        return tree.nearest(q, seed: seed)?.index
    }

    /// The nearest place by a tree search from no seed and no decided cell: what
    /// ``nearestIndex(to:)`` must always agree with (checked by tests and the bench).
    public func nearestIndexWithoutSeeds(to coordinate: Coordinate) -> Int? {
        tree.nearest(unitVector(latitude: coordinate.latitude, longitude: coordinate.longitude), seed: nil)?.index
    }

    /// Great-circle metres for a squared chord between unit vectors.
    @inline(__always) static func metres(chord2: Double) -> Double {
        2 * Coordinate.earthRadius * asin(min(1, chord2.squareRoot() / 2))
    }

    /// Calls `body(placeIndex, metres)` for each place within `radius` metres of
    /// `coordinate`, skipping subtrees `skip(lowerBoundMetres, largestPopulation)` rules out.
    func forEachPlace(
        within radius: Double, of coordinate: Coordinate, skip: (Double, Int) -> Bool = { _, _ in false },
        _ body: (Int, Double) -> Void
    ) {
        let q = unitVector(latitude: coordinate.latitude, longitude: coordinate.longitude)
        tree.walk(q) { node, lower in
            let metres = Self.metres(chord2: lower)
            return metres > radius || skip(metres, tree.largestPopulation(node))
        } visit: { slot, chord2 in
            let metres = Self.metres(chord2: chord2)
            if metres <= radius { body(tree.place(atSlot: slot), metres) }
        }
    }
}

extension Gazetteer {
    /// How far a place's name reaches from its point: at least 1.5 km, growing with the
    /// square root of the population (Berlin ≈ 18 km, a town of 30,000 ≈ 1.7 km).
    static func influenceRadius(population: Int) -> Double {
        max(1500, 10 * Double(population).squareRoot())
    }

    /// The place a person would say they are in: among places within 30 km, the one
    /// whose influence radius best covers the point (smallest distance ÷ radius, with
    /// distances below 1 km counted as 1 km), so a
    /// point in central Berlin is "Berlin", not the district "Mitte", while a village is
    /// still named when you are in it. Falls back to ``nearest(to:)`` beyond 30 km.
    public func locality(for coordinate: Coordinate) -> NearestPlace? {
        guard let nearestIndex = nearestIndex(to: coordinate) else { return nil }
        let nearest = NearestPlace(place: place(at: nearestIndex), from: coordinate)
        let searchRadius = 30_000.0
        guard nearest.distance < searchRadius else { return nearest }
        // The influence rule must not jump a border: only places of the country and
        // admin-1 region the point is in, as the nearest places tell it, may name it.
        let (country, region) = surroundingRegion(of: coordinate, nearest: nearestIndex, distance: nearest.distance)
        // Distances under 1 km count as 1 km: standing on a district's point should not
        // beat the city that contains the district.
        func score(_ metres: Double, _ population: Int) -> Double {
            max(metres, 1000) / Self.influenceRadius(population: population)
        }
        var bestScore = score(nearest.distance, nearest.place.population)
        var bestIndex = -1
        forEachPlace(within: searchRadius, of: coordinate) { lower, largest in
            // No place below can beat the best: even the biggest, at the nearest spot.
            score(lower, largest) >= bestScore
        } _: { index, metres in
            guard countryIndex(ofPlace: index) == country, admin1Index(ofPlace: index) == region else { return }
            let candidate = score(metres, self.population(at: index))
            if candidate < bestScore {
                bestScore = candidate
                bestIndex = index
            }
        }
        return bestIndex < 0 ? nearest : NearestPlace(place: place(at: bestIndex), from: coordinate)
    }
}

extension Gazetteer {
    /// The country and admin-1 region `coordinate` is in, as far as the data can tell:
    /// those most of the five nearest places are in (the nearest decides a tie). One
    /// nearest place alone can be across a river that is a border.
    func surroundingRegion(of coordinate: Coordinate, nearest: Int, distance: Double) -> (UInt16, UInt16) {
        func region(_ index: Int) -> Int { Int(countryIndex(ofPlace: index)) << 16 | Int(admin1Index(ofPlace: index)) }
        var nearby: [(index: Int, metres: Double)] = []
        forEachPlace(within: max(distance * 3, 3000), of: coordinate) { index, metres in
            nearby.append((index, metres))
        }
        // The nearest first, then by distance: among regions with as many votes, the one
        // nearer wins (a dictionary's order would change from run to run).
        let order = [region(nearest)] + nearby.sorted { $0.metres < $1.metres }.prefix(5).map { region($0.index) }
        var votes: [Int: Int] = [:]
        for key in order.dropFirst() { votes[key, default: 0] += 1 }
        let most = votes.values.max() ?? 0
        let chosen = order.first { votes[$0, default: 0] == most } ?? order[0]
        return (UInt16(chosen >> 16), UInt16(chosen & 0xFFFF))
    }
}

/// A reverse-geocoding answer: the place, and where the queried point lies from it.
public struct NearestPlace: Sendable, Hashable {
    /// The place.
    public var place: Place
    /// Great-circle distance from the place to the queried point, metres.
    public var distance: Double
    /// Bearing from the place to the queried point, degrees clockwise from north.
    public var bearing: Double

    /// `place` seen from `point` (distance and bearing computed).
    public init(place: Place, from point: Coordinate) {
        self.place = place
        self.distance = place.coordinate.distance(to: point)
        self.bearing = place.coordinate.bearing(to: point)
    }

    /// "3 km NE of Erding", or "in Erding" within 1 km of its point.
    public var relativeDescription: String {
        if distance < 1000 { return "in \(place.name)" }
        let km = distance < 10_000 ? String(format: "%.1f", distance / 1000) : String(Int((distance / 1000).rounded()))
        return "\(km) km \(CompassDirection(bearing: bearing).rawValue) of \(place.name)"
    }
}
