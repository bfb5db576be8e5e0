import Foundation
import Testing

@testable import Geo

@Suite struct CoordinateTests {
    @Test(arguments: [91.0, -90.5, .nan, .infinity])
    func rejectsImpossibleLatitudes(latitude: Double) {
        #expect(throws: CoordinateError.self) { try Coordinate(latitude: latitude, longitude: 0) }
    }

    @Test func errorNamesTheValidRange() {
        #expect(CoordinateError.latitudeOutOfRange(91).description.contains("-90...90"))
        #expect(CoordinateError.longitudeOutOfRange(200).description.contains("-180...180"))
    }

    @Test func distanceBerlinToParisIsAbout878Kilometres() throws {
        let berlin = try Coordinate(latitude: 52.52, longitude: 13.405)
        let paris = try Coordinate(latitude: 48.8566, longitude: 2.3522)
        #expect(abs(berlin.distance(to: paris) / 1000 - 878) < 5)
    }

    @Test func distanceAcrossTheAntimeridianIsShort() throws {
        let west = try Coordinate(latitude: 0, longitude: 179.9)
        let east = try Coordinate(latitude: 0, longitude: -179.9)
        #expect(west.distance(to: east) < 25_000)
    }

    @Test func bearingAndCompass() throws {
        let origin = try Coordinate(latitude: 48.0, longitude: 11.0)
        let northEast = try Coordinate(latitude: 48.02, longitude: 11.03)
        #expect(CompassDirection(bearing: origin.bearing(to: northEast)) == .northEast)
        #expect(CompassDirection(bearing: 359) == .north)
        #expect(CompassDirection(bearing: -90) == .west)
    }

    @Test func roundingSnapsToAStableGrid() throws {
        let point = try Coordinate(latitude: 52.52437, longitude: 13.41053)
        let rounded = point.rounded(toDegrees: 0.01)
        #expect(rounded.latitude == 52.52)
        #expect(rounded.longitude == 13.41)
        // Nearby points snap to the same cell: averaging repeated requests reveals nothing.
        let nearby = try Coordinate(latitude: 52.5211, longitude: 13.4091).rounded(toDegrees: 0.01)
        #expect(nearby == rounded)
        #expect(try Coordinate(latitude: 0, longitude: 179.999).rounded(toDegrees: 0.01).longitude == 180)
    }

    @Test func descriptionUsesHemispheres() throws {
        #expect(try Coordinate(latitude: -33.8688, longitude: -151.2093).description == "33.8688° S, 151.2093° W")
    }

    @Test func displayNameLeavesOutEmptyParts() throws {
        let place = Place(
            id: 1, name: "Monaco", coordinate: try Coordinate(latitude: 43.73, longitude: 7.42), country: "Monaco")
        #expect(place.displayName == "Monaco, Monaco")
    }

    @Test func ageCountsFromReceiptNotFromAWrongReceiverClock() throws {
        let now = Date()
        let fix = Fix(
            coordinate: try Coordinate(latitude: 1, longitude: 1), source: .gps,
            time: now.addingTimeInterval(-86400 * 700), receivedAt: now.addingTimeInterval(-2))
        #expect(fix.age(at: now) == 2)
    }
}
