/// Eight-point compass names for a bearing, used in "3 km NE of Erding".
public enum CompassDirection: String, Sendable, CaseIterable {
    case north = "N", northEast = "NE", east = "E", southEast = "SE"
    case south = "S", southWest = "SW", west = "W", northWest = "NW"

    /// The sector a bearing (degrees clockwise from north, any value) falls into.
    public init(bearing: Double) {
        let normalized = (bearing.truncatingRemainder(dividingBy: 360) + 360)
            .truncatingRemainder(dividingBy: 360)
        let index = Int((normalized + 22.5) / 45) % 8
        self = CompassDirection.allCases[index]
    }
}
