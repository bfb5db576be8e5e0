import Foundation
import TestSupport
import Testing

/// `[serve] position = coarse` drew the exact track on `/day.svg` (473 vertices, 120
/// distinct, where `/api/map` gave 4 grid points) and wrote a start or end label without a
/// place name as the exact coordinate. The figure now puts every position on the grid the
/// API serves: no more distinct vertices than the API's grid points, no finer label.
@Suite(.enabled(if: ExternalTool.available("curl")))
struct ServeCoarseFigureEndToEndTests {
    @Test func theCoarseFigureHasNoVertexOrLabelFinerThanTheGrid() async throws {
        let (home, server, port) = try await ServeEndToEndTests.serve(
            "[serve]\nlisten = 127.0.0.1:0\nposition = coarse\n")
        defer { home.remove() }
        let figure = try await FleetPageEndToEndTests.get(port, "/day.svg")
        #expect(figure.status == 200, "\(figure)")
        let track = try await FleetPageEndToEndTests.get(
            port, "/api/track?since=2000-01-01T00:00Z&until=2100-01-01T00:00Z")
        #expect(track.status == 200)

        // The grid points the API serves.
        var cells = Set<String>()
        let features =
            ((FleetPageEndToEndTests.json(track.body) as? [String: Any])?["features"] as? [[String: Any]]) ?? []
        for feature in features {
            let geometry = feature["geometry"] as? [String: Any] ?? [:]
            let positions =
                geometry["type"] as? String == "LineString"
                ? geometry["coordinates"] as? [[Double]] ?? [] : [geometry["coordinates"] as? [Double] ?? []]
            for position in positions where position.count >= 2 { cells.insert("\(position[0]),\(position[1])") }
        }
        #expect(!cells.isEmpty, "\(track.body.prefix(300))")

        // The figure's vertices: one per grid point at most (the same point, the same pixel).
        var vertices = Set<String>()
        for match in figure.body.components(separatedBy: "points=\"").dropFirst() {
            let points = match.prefix { $0 != "\"" }
            for vertex in points.split(separator: " ") { vertices.insert(String(vertex)) }
        }
        #expect(
            !vertices.isEmpty && vertices.count <= cells.count, "\(vertices.count) vertices, \(cells.count) grid points"
        )

        // Any coordinate written in the figure is on the 0.01° grid.
        let degrees = figure.body.split(whereSeparator: { !"0123456789.°".contains($0) })
            .filter { $0.hasSuffix("°") }.compactMap { Double($0.dropLast()) }
        for value in degrees {
            #expect(abs(value * 100 - (value * 100).rounded()) < 1e-6, "\(value)° is finer than the grid")
        }
        #expect(try await server.terminate().status == 0)
    }
}
