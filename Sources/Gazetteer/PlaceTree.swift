import Foundation
import Geo

/// A k-d tree over the places' unit vectors (section `KDTR`), for reverse geocoding at
/// millions of lookups per second: nearest place, and the place whose influence best
/// covers a point (``Gazetteer/locality(for:)``).
///
/// Layout: u32 place count, u32 leaf size, u32 node count, u32 pad; then per node (heap
/// order: children of i are 2i+1 and 2i+2) f32 split value, u8 axis, 3 pad bytes, u32
/// largest population below; then the place indices in tree order (u32 each); then
/// the unit vectors in tree order (3 × f32 each). A node covering [lo, hi) of the tree
/// order splits at mid = (lo + hi) / 2; a range of at most `leaf size` places is a leaf,
/// so ranges need not be stored. Chord distance between unit vectors is monotonic in
/// great-circle distance, so every comparison is three multiplications.
struct PlaceTree: Sendable {
    /// 16 measured best overall (random points: 8 → 3.53M/s, 16 → 3.85–3.97M/s, 32 →
    /// 4.14M/s; `locality`: 285k, 386–410k, 336k/s): fewer, fuller leaves scan fast.
    static let leafSize = 16
    static let nodeStride = 12

    let count: Int
    let leafSize: Int
    let nodeCount: Int
    let nodes: SectionReader
    let order: SectionReader
    let vectors: SectionReader

    /// Validates the section's sizes; nil when they do not add up.
    init?(section: SectionReader) {
        guard section.count >= 16 else { return nil }
        count = Int(section.u32(0))
        leafSize = Int(section.u32(4))
        nodeCount = Int(section.u32(8))
        let nodeBytes = nodeCount * Self.nodeStride
        guard leafSize >= 1, count < 1 << 28, nodeCount < 1 << 28,
            section.count == 16 + nodeBytes + count * 4 + count * 12
        else { return nil }
        nodes = SectionReader(base: section.base + 16, count: nodeBytes, damage: section.damage)
        order = SectionReader(base: section.base + 16 + nodeBytes, count: count * 4, damage: section.damage)
        vectors = SectionReader(
            base: section.base + 16 + nodeBytes + count * 4, count: count * 12, damage: section.damage)
    }

    /// `slot` < `count` (the walk's ranges come from `count`, and `vectors` holds
    /// `count` × 12 bytes, checked at load): no per-float check.
    @inline(__always) private func component(_ slot: Int, _ axis: Int) -> Double {
        Double(vectors.uncheckedF32(slot * 12 + axis * 4))
    }

    /// The place index of tree slot `slot`.
    @inline(__always) func place(atSlot slot: Int) -> Int { Int(order.u32(slot * 4)) }

    /// Visits the tree nearest-side first. `skip(node, lowerChord2)` may skip a subtree
    /// given a lower bound on the squared chord distance to anything in it (Arya and
    /// Mount's incremental distance: the sum over axes of the offset to the cell, tighter
    /// than the distance to one splitting plane); `visit(slot, chord2)` sees each leaf
    /// entry.
    @inline(__always)
    func walk(
        _ q: (Double, Double, Double), skip: (_ node: Int, _ lowerChord2: Double) -> Bool,
        visit: (_ slot: Int, _ chord2: Double) -> Void
    ) {
        guard count > 0 else { return }
        // The stack never holds more than one entry per level plus one.
        withUnsafeTemporaryAllocation(of: StackEntry.self, capacity: 64) { stack in
            var top = 0
            stack[0] = StackEntry(node: 0, lo: 0, hi: Int32(count), offsets: (0, 0, 0), bound: 0)
            top = 1
            while top > 0 {
                top -= 1
                let entry = stack[top]
                if skip(Int(entry.node), entry.bound) { continue }
                let lo = Int(entry.lo)
                let hi = Int(entry.hi)
                let node = Int(entry.node)
                if hi - lo <= leafSize || node >= nodeCount {
                    for slot in lo..<hi {
                        let dx = component(slot, 0) - q.0
                        let dy = component(slot, 1) - q.1
                        let dz = component(slot, 2) - q.2
                        visit(slot, dx * dx + dy * dy + dz * dz)
                    }
                    continue
                }
                // node < nodeCount here, and `nodes` holds nodeCount records (checked at load).
                let base = node * Self.nodeStride
                let split = Double(nodes.uncheckedF32(base))
                let axis = Int(nodes.uncheckedU8(base + 4))
                let value = axis == 0 ? q.0 : (axis == 1 ? q.1 : q.2)
                let diff = value - split
                let mid = Int32((lo + hi) / 2)
                var farOffsets = entry.offsets
                let old: Double
                switch axis {
                case 0:
                    old = farOffsets.0
                    farOffsets.0 = diff
                case 1:
                    old = farOffsets.1
                    farOffsets.1 = diff
                default:
                    old = farOffsets.2
                    farOffsets.2 = diff
                }
                let farBound = entry.bound - old * old + diff * diff
                let leftNode = Int32(2 * node + 1)
                let rightNode = Int32(2 * node + 2)
                // Far side first on the stack, so the near side is searched first.
                if diff < 0 {
                    stack[top] = StackEntry(
                        node: rightNode, lo: mid, hi: entry.hi, offsets: farOffsets, bound: farBound)
                    stack[top + 1] = StackEntry(
                        node: leftNode, lo: entry.lo, hi: mid, offsets: entry.offsets, bound: entry.bound)
                } else {
                    stack[top] = StackEntry(node: leftNode, lo: entry.lo, hi: mid, offsets: farOffsets, bound: farBound)
                    stack[top + 1] = StackEntry(
                        node: rightNode, lo: mid, hi: entry.hi, offsets: entry.offsets, bound: entry.bound)
                }
                top += 2
            }
        }
    }

    private struct StackEntry {
        var node: Int32
        var lo: Int32
        var hi: Int32
        var offsets: (Double, Double, Double)
        var bound: Double
    }

    /// The tree slot and place index nearest to unit vector `q`, with its squared chord
    /// distance, starting from a known candidate slot (`seed`) whose distance bounds the
    /// search from the start. Ties go to the lower place index.
    @inline(__always)
    func nearest(_ q: (Double, Double, Double), seed: Int?) -> (slot: Int, index: Int, chord2: Double)? {
        var best = Double.infinity
        var bestIndex = Int.max
        var bestSlot = -1
        if let seed, seed >= 0, seed < count {
            best = chord2(q, slot: seed)
            bestIndex = place(atSlot: seed)
            bestSlot = seed
        }
        walk(q) { _, lower in
            lower > best
        } visit: { slot, chord2 in
            if chord2 <= best {
                let index = place(atSlot: slot)
                if chord2 < best || index < bestIndex {
                    best = chord2
                    bestIndex = index
                    bestSlot = slot
                }
            }
        }
        return bestSlot < 0 ? nil : (bestSlot, bestIndex, best)
    }

    /// Set in a seed when the seeded place is the nearest for every point of its cell.
    static let decidedFlag: UInt32 = 1 << 31

    /// For each cell of an equal-angle grid (`cellsPerDegree`), the slot of the place
    /// nearest to the cell's centre: a seed that makes most searches start with a bound
    /// close to the answer (a point in mid-ocean otherwise visits many leaves). When that
    /// place is provably the nearest for the whole cell — its distance from the centre
    /// plus the cell's radius is less than the second nearest's minus the radius — the
    /// seed carries ``decidedFlag`` and a lookup needs no search at all (most of the
    /// ocean, deserts, tundra).
    static func seeds(treeBytes: [UInt8], cellsPerDegree: Int) -> [UInt8] {
        var out = BinaryWriter()
        out.u32(UInt32(cellsPerDegree))
        // The builder's own bytes: a damage record for the readers' sake, alive for the walk.
        let damage = GazetteerDamage(file: "")
        treeBytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress,
                let tree = PlaceTree(section: SectionReader(base: base, count: raw.count, damage: damage))
            else { return }
            let step = 1 / Double(cellsPerDegree)
            // Each cell starts from its western neighbour's answer, which is close by:
            // the whole grid costs about as much as one search per cell's few leaves.
            var previous: Int?
            for row in 0..<(180 * cellsPerDegree) {
                let south = -90 + Double(row) * step
                let centreLatitude = south + step / 2
                // The farthest point of the cell from its centre is a corner on the side
                // nearer the equator; 1% and 10 m more cover rounding of the vectors.
                let corner = abs(south) < abs(south + step) ? south : south + step
                let radius =
                    Coordinate(uncheckedLatitude: centreLatitude, longitude: 0)
                    .distance(to: Coordinate(uncheckedLatitude: corner, longitude: step / 2)) * 1.01 + 10
                for column in 0..<(360 * cellsPerDegree) {
                    let q = unitVector(latitude: centreLatitude, longitude: -180 + (Double(column) + 0.5) * step)
                    guard let nearest = tree.nearest(q, seed: previous) else {
                        out.u32(0)
                        continue
                    }
                    previous = nearest.slot
                    var seed = UInt32(nearest.slot)
                    if let second = tree.nearestChord2(q, excluding: nearest.slot),
                        Gazetteer.metres(chord2: nearest.chord2) + radius < Gazetteer.metres(chord2: second) - radius
                    {
                        seed |= decidedFlag
                    } else {
                        let west = -180 + Double(column) * step
                        let corners = [
                            unitVector(latitude: south, longitude: west),
                            unitVector(latitude: south, longitude: west + step),
                            unitVector(latitude: south + step, longitude: west),
                            unitVector(latitude: south + step, longitude: west + step),
                        ]
                        let reach = Gazetteer.metres(chord2: nearest.chord2) + 2 * radius
                        if tree.isNearestEverywhere(
                            slot: nearest.slot, centre: q, reach: reach, corners: corners, step: step)
                        {
                            seed |= decidedFlag
                        }
                    }
                    out.u32(seed)
                }
            }
        }
        return out.bytes
    }

    /// True when the place at `slot` is nearer than every other place at every point of
    /// a grid cell (given by its corners and its size in degrees, `step`).
    ///
    /// The nearest place to a unit vector x is the one with the largest x·p, so `slot`'s
    /// place p wins everywhere in the cell iff (q − p)·x < 0 for every other place q and
    /// every x in the cell (< (|q|² − |p|²)/2 exactly, for the stored float vectors). A linear function's largest value on the cell is at a corner,
    /// up to how far the cell bulges from the corners' plane — less than step² (radians)
    /// — so the test is: the largest corner value plus |q − p|·step² is negative. Only
    /// places within `reach` metres of the centre (the nearest's distance plus the cell's
    /// diameter) can win anywhere in the cell: the others are not looked at. A mid-ocean
    /// cell far from every coast is decided this way although its two nearest places are
    /// nearly as far as each other.
    func isNearestEverywhere(
        slot: Int, centre: (Double, Double, Double), reach: Double, corners: [(Double, Double, Double)], step: Double
    ) -> Bool {
        let p = (component(slot, 0), component(slot, 1), component(slot, 2))
        let angle = min(Double.pi, reach / Coordinate.earthRadius)
        let bound = 4 * sin(angle / 2) * sin(angle / 2)
        let radians = step * Double.pi / 180
        let bulge = radians * radians
        var decided = true
        walk(centre) { _, lower in
            !decided || lower > bound
        } visit: { other, chord2 in
            guard decided, other != slot, chord2 <= bound else { return }
            let o = (component(other, 0), component(other, 1), component(other, 2))
            let v = (o.0 - p.0, o.1 - p.1, o.2 - p.2)
            let length = (v.0 * v.0 + v.1 * v.1 + v.2 * v.2).squareRoot()
            // The lookup compares squared chords of the stored (float, not exactly unit)
            // vectors: |x − p|² < |x − o|² ⇔ v·x < (|o|² − |p|²) / 2. The same criterion
            // here, so a decided cell answers exactly what a search would.
            let threshold = ((o.0 * o.0 + o.1 * o.1 + o.2 * o.2) - (p.0 * p.0 + p.1 * p.1 + p.2 * p.2)) / 2
            var largest = -Double.infinity
            for x in corners { largest = max(largest, v.0 * x.0 + v.1 * x.1 + v.2 * x.2) }
            if largest + length * bulge >= threshold { decided = false }
        }
        return decided
    }

    /// Squared chord distance from `q` to the nearest place other than tree slot
    /// `excluded` (the second nearest, when `excluded` is the nearest).
    func nearestChord2(_ q: (Double, Double, Double), excluding excluded: Int) -> Double? {
        var best = Double.infinity
        walk(q) { _, lower in
            lower > best
        } visit: { slot, chord2 in
            if slot != excluded && chord2 < best { best = chord2 }
        }
        return best.isFinite ? best : nil
    }

    /// Squared chord distance from `q` to the place at tree slot `slot`.
    @inline(__always) func chord2(_ q: (Double, Double, Double), slot: Int) -> Double {
        let dx = component(slot, 0) - q.0
        let dy = component(slot, 1) - q.1
        let dz = component(slot, 2) - q.2
        return dx * dx + dy * dy + dz * dz
    }

    /// Largest population in the subtree of `node` (for pruning by influence).
    @inline(__always) func largestPopulation(_ node: Int) -> Int {
        node < nodeCount ? Int(nodes.u32(node * Self.nodeStride + 8)) : Int.max
    }

    // MARK: - Building

    /// Serialises the tree for places with these unit vectors and populations.
    static func build(vectors: [(Float, Float, Float)], populations: [Int]) -> [UInt8] {
        let n = vectors.count
        var order = Array(0..<n)
        // Heap-ordered nodes; a complete binary tree deep enough for every internal node.
        var depth = 0
        while (n >> depth) > leafSize { depth += 1 }
        let nodeCount = n > leafSize ? (1 << (depth + 1)) - 1 : 0
        var splits = [Float](repeating: 0, count: nodeCount)
        var axes = [UInt8](repeating: 0, count: nodeCount)
        var largest = [UInt32](repeating: 0, count: nodeCount)

        func coordinate(_ index: Int, _ axis: Int) -> Float {
            axis == 0 ? vectors[index].0 : (axis == 1 ? vectors[index].1 : vectors[index].2)
        }

        func build(_ node: Int, _ lo: Int, _ hi: Int) -> UInt32 {
            let biggest = order[lo..<hi].reduce(0) { max($0, UInt32(clamping: populations[$1])) }
            if node < nodeCount { largest[node] = biggest }
            guard hi - lo > leafSize, node < nodeCount else { return biggest }
            var axis = 0
            var widest: Float = -1
            for a in 0..<3 {
                var low = Float.infinity
                var high = -Float.infinity
                for index in order[lo..<hi] {
                    low = min(low, coordinate(index, a))
                    high = max(high, coordinate(index, a))
                }
                if high - low > widest {
                    widest = high - low
                    axis = a
                }
            }
            // Sort the range on the axis (ties by index, for a deterministic file).
            order[lo..<hi].sort {
                let a = coordinate($0, axis)
                let b = coordinate($1, axis)
                return a < b || (a == b && $0 < $1)
            }
            let mid = (lo + hi) / 2
            splits[node] = coordinate(order[mid], axis)
            axes[node] = UInt8(axis)
            _ = build(2 * node + 1, lo, mid)
            _ = build(2 * node + 2, mid, hi)
            return biggest
        }
        _ = build(0, 0, n)

        var out = BinaryWriter()
        out.u32(UInt32(n))
        out.u32(UInt32(leafSize))
        out.u32(UInt32(nodeCount))
        out.u32(0)
        for node in 0..<nodeCount {
            out.f32(splits[node])
            out.u8(axes[node])
            out.raw([0, 0, 0])
            out.u32(largest[node])
        }
        for index in order { out.u32(UInt32(index)) }
        for index in order {
            out.f32(vectors[index].0)
            out.f32(vectors[index].1)
            out.f32(vectors[index].2)
        }
        return out.bytes
    }
}
