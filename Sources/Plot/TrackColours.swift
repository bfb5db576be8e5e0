import AirQuality
import Foundation
import Geo
import Logbook

/// A window's track as a map draws it: each point with the colour of the AQI in force
/// there and then (measured where a sensor row is at most 10 minutes old, else the
/// model's hour), as the day's figure colours it.
///
/// Contract: points in time order, at most `limit` of them (every k-th, each segment's
/// last kept), so that a day of one-second fixes stays a light page; grey where no
/// reading was in force.
public enum TrackColours {
    /// A point of the track.
    public struct Point: Sendable, Equatable {
        /// Where.
        public var coordinate: Coordinate
        /// When.
        public var time: Date
        /// Its segment (a new one after a gap).
        public var segment: Int64
        /// `#RRGGBB` of the index in force.
        public var colour: String
        /// The index in force, on the scale asked for.
        public var index: Int?
    }

    /// The track of `window` with its colours on `scale`.
    public static func points(_ logbook: Logbook, window: LogWindow, scale: AQIScale, limit: Int = 5_000) throws
        -> [Point]
    {
        let readings = try AirInForce(logbook: logbook, window: window, scale: scale)
        var all: [TrackPoint] = []
        var cursor = try logbook.trackPoints(in: window)
        while let point = cursor.next() { all.append(point) }
        if let error = cursor.error { throw error }
        let step = max(1, (all.count + limit - 1) / limit)
        var points: [Point] = []
        for (offset, point) in all.enumerated() {
            let last = offset == all.count - 1 || all[offset + 1].segment != point.segment
            guard offset % step == 0 || last else { continue }
            points.append(
                Point(
                    coordinate: point.coordinate, time: point.time, segment: point.segment,
                    colour: readings.color(at: point.time), index: readings.index(at: point.time)))
        }
        return points
    }
}
