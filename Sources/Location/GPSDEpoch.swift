import Foundation

/// One fix per receiver epoch: gpsd reports an epoch (one instant of the receiver) in
/// several TPV objects — one per NMEA sentence — until it has learned which sentence
/// ends the receiver's cycle, each with only some of the fields (GGA brings the altitude,
/// RMC the course, GST the error estimate). This joins them before anything downstream
/// sees a half-fix.
///
/// A pure value (events in, joined reports out): an epoch is passed on when the next one
/// begins (a report with another time), or by ``flush()`` when the stream ends; a late
/// report of an epoch already passed on is dropped. The satellites used come from the
/// latest SKY report when the TPVs do not carry them. Reports without a time cannot be
/// joined and pass straight through.
struct GPSDEpoch: Sendable {
    private var pending: GPSDReport?
    private var lastPassedTime: Date?
    private var satellitesUsed: Int?

    /// A TPV arrived: the epochs it completes (zero, one, or a time-less report after one).
    mutating func received(_ report: GPSDReport) -> [GPSDReport] {
        guard let time = report.time else { return flush() + [withSatellites(report)] }
        if time == lastPassedTime { return [] }
        if var epoch = pending, epoch.time == time {
            epoch.join(report)
            pending = epoch
            return []
        }
        let completed = flush()
        pending = report
        return completed
    }

    /// A SKY report: how many satellites the solution uses.
    mutating func satellites(used: Int?) {
        if let used { satellitesUsed = used }
    }

    /// gpsd's answer to `?POLL` is already one joined epoch: reports of the same time that
    /// are still to come must not repeat it.
    mutating func passedOn(time: Date?) {
        guard let time else { return }
        lastPassedTime = time
        if pending?.time == time { pending = nil }
    }

    /// The epoch being gathered, now (the stream ends).
    mutating func flush() -> [GPSDReport] {
        guard let epoch = pending else { return [] }
        pending = nil
        lastPassedTime = epoch.time
        return [withSatellites(epoch)]
    }

    private func withSatellites(_ report: GPSDReport) -> GPSDReport {
        var report = report
        if report.satellitesUsed == nil { report.satellitesUsed = satellitesUsed }
        return report
    }
}

extension GPSDReport {
    /// Joins a later report of the same epoch: what it says wins, what it leaves out is
    /// kept. The time the epoch was first heard stays its `receivedAt`.
    mutating func join(_ later: GPSDReport) {
        if later.hasPosition {
            hasPosition = true
            latitude = later.latitude
            longitude = later.longitude
        }
        if later.hasMode {
            hasMode = true
            mode = later.mode
        }
        altitudeHAE = later.altitudeHAE ?? altitudeHAE
        altitudeMSL = later.altitudeMSL ?? altitudeMSL
        eph = later.eph ?? eph
        epx = later.epx ?? epx
        epy = later.epy ?? epy
        speed = later.speed ?? speed
        track = later.track ?? track
        satellitesUsed = later.satellitesUsed ?? satellitesUsed
    }
}
