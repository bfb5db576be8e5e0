import Airloc
import Foundation
import Logbook

/// The field logger and, with a broker, its publisher, run together as `airloc log run`
/// runs them: what a Swift program starts to log and publish (docs/library.md).
///
/// Contract:
/// - ``run(_:)`` logs until the calling task is cancelled (SIGTERM), or until the broker
///   refuses the credentials, or an upload's server refuses its first request (a
///   configuration matter: retrying cannot help), and returns what this run wrote and
///   that refusal.
/// - The shutdown order: the logger finishes the row it is writing first; then the
///   publisher publishes what was written since its last round, while the broker keeps
///   acknowledging (``FleetPublisher/finish(patience:)``); then `offline` and a clean
///   disconnect. A cancellation does not cut that drain short.
public struct LoggingService: Sendable {
    public var logger: FieldLogger
    public var publisher: FleetPublisher?
    /// The uploads (module `Uploads`), each run as a task of its own beside the logger: a
    /// refusal on its first request ends the run as the broker's does; a later one ends
    /// only that upload.
    public var uploads: [@Sendable () async -> String?] = []

    public struct Outcome: Sendable {
        public var written: (track: Int, air: Int, pending: Int, backfilled: Int, sensor: Int)
        /// The broker's refusal of the credentials, when that ended the run.
        public var refused: String?
        /// An upload's refusal of the run's first request, when that ended the run.
        public var uploadRefused: String?
    }

    public init(
        logger: FieldLogger, publisher: FleetPublisher?, uploads: [@Sendable () async -> String?] = []
    ) {
        self.logger = logger
        self.publisher = publisher
        self.uploads = uploads
    }

    public func run(_ following: LocationSession.Following) async -> Outcome {
        let start = logger
        let loggerTask = Task {
            var logger = start
            await logger.run(following)
            return logger.written
        }
        let publisherTask = publisher.map { start in
            Task {
                var publisher = start
                let fatal = await publisher.run()
                if fatal == nil {
                    // Stopped: the logger may have written rows since the last round. A task
                    // of its own, so this task's cancellation does not cut the wait short.
                    _ = await loggerTask.value
                    publisher = await Task { [publisher] in
                        var finishing = publisher
                        await finishing.finish()
                        return finishing
                    }.value
                }
                publisher.close()
                if fatal != nil { loggerTask.cancel() }
                return fatal
            }
        }
        let uploadTasks = uploads.map { upload in
            Task {
                let fatal = await upload()
                if fatal != nil { loggerTask.cancel() }
                return fatal
            }
        }
        let written = await withTaskCancellationHandler {
            await loggerTask.value
        } onCancel: {
            loggerTask.cancel()
            publisherTask?.cancel()
            for task in uploadTasks { task.cancel() }
        }
        publisherTask?.cancel()
        for task in uploadTasks { task.cancel() }
        let refused = await publisherTask?.value ?? nil
        var uploadRefused: String?
        for task in uploadTasks {
            let stop = await task.value
            if uploadRefused == nil { uploadRefused = stop }
        }
        return Outcome(written: written, refused: refused, uploadRefused: uploadRefused)
    }
}
