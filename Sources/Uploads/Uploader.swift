import Airloc
import Fleet
import Foundation
import Logbook
import Platform
import Web

/// One upload, run beside the logger: the rows after its cursor, oldest first, sent to
/// its server, the cursor moved when the server accepted them (docs/uploads.md).
///
/// Contract:
/// - Store and forward: nothing is sent that the logbook does not hold, and the cursor
///   moves only on the server's success (2xx; for owntracks-mqtt the broker's PUBACK), in
///   the same transaction as the counts. A power cut can make the batch in flight go
///   again, nothing more.
/// - Paced and backed off by ``UploadGate``; rows a server refuses for themselves are
///   skipped and counted (``UploadVerdict``); the last error is kept in the logbook.
/// - ``run()`` returns the refusal that stopped it (bad credentials, an unknown box),
///   with whether it came on the first request of the run, nil when cancelled.
public struct Uploader: Sendable {
    public struct Stop: Sendable, Equatable {
        public var reason: String
        /// The first request of the run was refused: a configuration matter (exit 78).
        public var atStart: Bool
    }

    public let plan: UploadPlan
    public let logbook: Logbook
    public let sender: any HTTPSender
    public let broker: MQTTConnection?
    public var time: any TimeSource
    public var notify: @Sendable (String) -> Void
    public var timeout: Duration = .seconds(15)
    private var gate: UploadGate
    private var answered = false
    private var lastError: String?

    public init(
        plan: UploadPlan, logbook: Logbook, sender: any HTTPSender, broker: MQTTConnection? = nil,
        time: any TimeSource = SystemTime(), notify: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.plan = plan
        self.logbook = logbook
        self.sender = sender
        self.broker = broker
        self.time = time
        self.notify = notify
        gate = UploadGate(pace: plan.pace)
    }

    /// Sends until cancelled, looking for new rows every second; the refusal that stopped
    /// it, nil when cancelled.
    public mutating func run() async -> Stop? {
        defer { broker?.close() }
        while !Task.isCancelled {
            switch await step() {
            case .stopped(let stop): return stop
            case .idle: try? await time.sleep(for: .seconds(1))
            case .worked: continue
            }
        }
        return nil
    }

    /// The upload as ``LoggingService`` runs it: until cancelled; a refusal of the run's
    /// first request is returned (it ends the run, exit 78), a later one only stops this
    /// upload (the logger goes on).
    public var service: @Sendable () async -> String? {
        let start = self
        return {
            var uploader = start
            guard let stop = await uploader.run(), stop.atStart else { return nil }
            return "[upload.\(uploader.plan.name)] \(stop.reason)"
        }
    }

    /// Sends until nothing is left to send (or a refusal stops it): a backlog drained.
    public mutating func drain() async -> Stop? {
        while !Task.isCancelled {
            switch await step() {
            case .stopped(let stop): return stop
            case .idle: return nil
            case .worked: continue
            }
        }
        return nil
    }

    enum Step {
        case worked
        case idle
        case stopped(Stop)
    }

    /// One request (or the wait before it), or idle when nothing is after the cursor.
    mutating func step() async -> Step {
        guard let next = gate.next(after: time.now) else {
            return .stopped(Stop(reason: gate.stopped ?? "stopped", atStart: !answered))
        }
        let wait = next - time.now
        if wait > .zero {
            try? await time.sleep(for: wait)
            return .worked
        }
        do {
            guard let batch = try nextBatch() else { return .idle }
            switch await send(batch.items) {
            case .accepted:
                answered = true
                gate.accepted(at: time.now)
                try logbook.advanceUpload(
                    plan.name, kind: batch.kind, to: batch.last, sent: batch.items.count, skipped: batch.stale,
                    at: time.date)
                if lastError != nil { notify("[upload.\(plan.name)] sending again") }
                lastError = nil
            case .rejected(let reason):
                answered = true
                gate.accepted(at: time.now)
                try logbook.advanceUpload(
                    plan.name, kind: batch.kind, to: batch.last, sent: 0, skipped: batch.items.count + batch.stale,
                    at: time.date)
                try logbook.recordUploadError(plan.name, "rows \(batch.range) refused: \(reason)", at: time.date)
                notify("[upload.\(plan.name)] the server refused rows \(batch.range): \(reason); skipped")
            case .retry(let after, let reason):
                let pause = gate.retry(after: after, at: time.now)
                try logbook.recordUploadError(plan.name, reason, at: time.date)
                if reason != lastError {
                    notify("[upload.\(plan.name)] \(reason); trying again in \(Int(pause.seconds)) s (the rows wait)")
                }
                lastError = reason
            case .refused(let reason):
                gate.refused(reason)
                try logbook.recordUploadError(plan.name, reason, at: time.date)
                notify("[upload.\(plan.name)] \(reason); stopped (retrying cannot help)")
            }
        } catch {
            notify("[upload.\(plan.name)] \(error)")
            try? await time.sleep(for: .seconds(5))
        }
        return .worked
    }

    struct Batch {
        var kind: String
        var items: [UploadItem]
        /// Rows too old to send (`max-age`), passed over.
        var stale: Int
        var last: Int64
        var range: String {
            let letter = kind == "track" ? "t" : "s"
            guard let first = items.first?.id else { return "\(letter)\(last)" }
            return first == last ? "\(letter)\(last)" : "\(letter)\(first)-\(letter)\(last)"
        }
    }

    /// The rows after the cursor (nil: none), the stale ones counted and passed over.
    func nextBatch() throws(LogbookError) -> Batch? {
        for kind in plan.kinds {
            let cursor = try logbook.uploadCursor(plan.name, kind: kind)
            let rows = try logbook.uploadRows(kind: kind, after: cursor, limit: plan.batch)
            guard !rows.isEmpty else { continue }
            var batch = Batch(kind: kind, items: [], stale: 0, last: cursor)
            for row in rows {
                let item: UploadItem
                switch row {
                case .track(let point):
                    let air = try logbook.air(before: point.time)
                    let measured = try logbook.measured(before: point.time, window: 600)
                    item = UploadItem(.position(point, air: air, measured: measured), plan: plan)
                case .sensor(let reading): item = UploadItem(.measured(reading), plan: plan)
                case .air: continue
                }
                batch.last = item.id
                if let maxAge = plan.maxAge, time.date.timeIntervalSince(item.time) > maxAge {
                    batch.stale += 1
                } else {
                    batch.items.append(item)
                }
            }
            return batch
        }
        return nil
    }

    /// Sends what `items` make; the first failure decides.
    func send(_ items: [UploadItem]) async -> UploadVerdict {
        let messages =
            plan.type == .openSenseMap || plan.type == .sensorCommunity
            ? MeasuredFormats.outgoing(items, plan: plan) : PositionFormats.outgoing(items, plan: plan)
        for message in messages {
            let verdict: UploadVerdict
            switch message {
            case .http(let request):
                do {
                    let answer = try await sender.send(request, service: "[upload.\(plan.name)]", timeout: timeout)
                    verdict = UploadVerdict.judge(answer, type: plan.type.rawValue, now: time.date)
                } catch { verdict = .retry(after: nil, "\(error)") }
            case .mqtt(let topic, let payload):
                verdict = await publish(topic, payload)
            }
            if verdict != .accepted { return verdict }
        }
        return .accepted
    }

    /// Publishes on the upload's broker and waits for its PUBACK.
    func publish(_ topic: String, _ payload: String) async -> UploadVerdict {
        guard let broker else { return .refused("no broker to publish to") }
        if broker.credentialsRefused { return .refused(broker.lastError ?? "the broker refused the credentials") }
        guard broker.isConnected else { return .retry(after: nil, broker.lastError ?? "not connected to the broker") }
        let mid: Int32
        do { mid = try broker.publish(topic, payload) } catch { return .retry(after: nil, "\(error)") }
        let end = time.now + timeout
        while time.now < end {
            if broker.takeAcknowledged().contains(mid) { return .accepted }
            try? await time.sleep(for: .milliseconds(10))
        }
        return .retry(after: nil, "the broker did not acknowledge within \(Int(timeout.seconds)) s")
    }
}
