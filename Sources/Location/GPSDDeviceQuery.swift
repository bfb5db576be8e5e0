import Foundation
import Geo
import Platform

extension GPSDProvider {
    /// The receivers gpsd has open (its DEVICES answer to WATCH), for `airloc doctor`.
    ///
    /// Contract: connects once, never retries, and returns or throws within `timeout`
    /// (plus the same scheduling margin as ``currentFix(timeout:)``); an empty list means
    /// gpsd runs but sees no receiver.
    public func devices(timeout: Duration) async throws -> [GPSDDevice] {
        let seconds = timeout.seconds
        let options = self.options
        return try await BlockingWork.run(
            "airloc-gpsd-devices", deadline: timeout + .milliseconds(500),
            late: { .failure(GPSDError.protocolError("no DEVICES answer within \(seconds) s")) }
        ) { stop in GPSDProvider.readDevices(options: options, seconds: seconds, stop: stop) }.get()
    }

    static func readDevices(options: Options, seconds: Double, stop: StopSignal) -> Result<[GPSDDevice], any Error> {
        let deadline = Date().addingTimeInterval(seconds)
        let connection: GPSDConnection
        switch watching(options, poll: false) {
        case .success(let opened): connection = opened
        case .failure(let error): return .failure(error)
        }
        while !stop.isSet && Date() < deadline {
            switch connection.next(wait: deadline.timeIntervalSinceNow, stop: stop) {
            case .message(.devices(let devices)): return .success(devices)
            case .closed: return .failure(GPSDError.wentAway(host: options.host, port: options.port))
            default: continue
            }
        }
        return .failure(GPSDError.protocolError("no DEVICES answer within \(seconds) s"))
    }
}
