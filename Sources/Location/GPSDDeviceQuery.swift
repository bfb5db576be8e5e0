import Foundation
import Geo

extension GPSDProvider {
    /// The receivers gpsd has open (its DEVICES answer to WATCH), for `airloc doctor`.
    ///
    /// Contract: connects once, never retries, and returns or throws within `timeout`
    /// (plus the same scheduling margin as ``currentFix(timeout:)``); an empty list means
    /// gpsd runs but sees no receiver.
    public func devices(timeout: Duration) async throws -> [GPSDDevice] {
        let seconds = timeout.seconds
        let options = self.options
        let stop = StopFlag()
        return try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<[GPSDDevice], any Error>) in
            let once = ResumeOnce(continuation)
            let thread = Thread {
                once.resume(with: GPSDProvider.readDevices(options: options, seconds: seconds, stop: stop))
            }
            thread.name = "airloc-gpsd-devices"
            thread.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds + 0.5) {
                stop.set()
                once.resume(with: .failure(GPSDError.protocolError("no DEVICES answer within \(seconds) s")))
            }
        }
    }

    static func readDevices(options: Options, seconds: Double, stop: StopFlag) -> Result<[GPSDDevice], any Error> {
        let deadline = Date().addingTimeInterval(seconds)
        let connection: GPSDConnection
        switch watching(options, poll: false) {
        case .success(let opened): connection = opened
        case .failure(let error): return .failure(error)
        }
        while !stop.isSet && Date() < deadline {
            switch connection.next(waitMicroseconds: 100_000) {
            case .message(.devices(let devices)): return .success(devices)
            case .closed: return .failure(GPSDError.wentAway(host: options.host, port: options.port))
            default: continue
            }
        }
        return .failure(GPSDError.protocolError("no DEVICES answer within \(seconds) s"))
    }
}
