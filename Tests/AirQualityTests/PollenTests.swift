import Testing

@testable import AirQuality

/// The pollen scale and the Tree / Grass / Weed summary.
@Suite struct PollenTests {
    @Test(arguments: [
        (PollenSpecies.birch, 0.0, PollenLevel.none), (.birch, 1, .low), (.birch, 10, .low), (.birch, 11, .moderate),
        (.birch, 50, .moderate), (.birch, 51, .high), (.birch, 200, .high), (.birch, 201, .veryHigh),
        (.grass, 100, .high), (.grass, 101, .veryHigh), (.ragweed, 101, .veryHigh), (.olive, 150, .high),
    ])
    func levels(species: PollenSpecies, value: Double, level: PollenLevel) {
        #expect(species.level(value) == level)
    }

    @Test func groupsTakeTheirHighestSpecies() throws {
        let pollen = PollenReading(species: [.alder: 3, .birch: 120, .grass: 5, .mugwort: 0])
        let tree = try #require(pollen.level(of: .tree))
        #expect(tree.level == .high && tree.species == .birch)
        #expect(pollen.level(of: .grass)?.level == .low)
        #expect(pollen.level(of: .weed)?.level == PollenLevel.none)
        #expect(pollen.dominant?.species == .birch)
        #expect(pollen.isAvailable)
    }

    @Test func nothingReportedIsNotAvailableNeverZero() {
        let pollen = PollenReading(species: [:])
        #expect(!pollen.isAvailable)
        #expect(pollen.level(of: .tree) == nil)
        #expect(pollen.dominant == nil)
        #expect(PollenReading(species: [.grass: 0]).dominant == nil, "all zero: available, but nothing to name")
    }
}
