import FleetWire
import Foundation
import Logbook
import MQTT
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
/// - As a ``Service`` it wakes for the logger's new rows (``LogbookChanges``) and for the
///   gate's next moment, never on a timer of its own. A refusal (credentials, no such box)
///   stops only this upload, loudly (the journal, `log status`, `doctor`), and it then waits
///   for the stop: logging is the station's first job, and a revoked token must not end it
///   (nor, with systemd not restarting a 78, every reboot's logging).
public struct Uploader: Service {
    /// Why an upload stopped.
    public struct Stop: Sendable, Equatable {
        /// What the server said.
        public var reason: String
    }

    /// Its name in the group (`upload.NAME`).
    public var name: ServiceName { .upload(plan.name) }
    /// The section as it runs.
    public let plan: UploadPlan
    /// Its own connection to the logger's file.
    public let logbook: Logbook
    /// What sends the requests (libcurl; a scripted server in tests).
    public let sender: any HTTPSender
    /// owntracks-mqtt's broker connection (a service of the same group).
    public let broker: (any MQTTClient)?
    /// The clock of its gate and timeouts.
    public var time: any TimeSource
    /// The logger's news of new rows.
    public var changes: LogbookChanges?
    /// Where it says what happens.
    public var notify: @Sendable (ServiceNotice) -> Void = { _ in }
    /// How long one request may take.
    public var timeout: Duration = .seconds(15)
    private var gate: UploadGate
    /// The batch whose first requests the server took before one failed, and how many:
    /// the retry sends only the rest (a sensor.community reading is two pushes, and the
    /// first must not be counted twice).
    private var delivered: (kind: RowKind, last: Int64, requests: Int)?
    private var lastError: String?
    private let acknowledgements: BrokerAcknowledgements?

    /// An upload of `plan` from `logbook`.
    public init(
        plan: UploadPlan, logbook: Logbook, sender: any HTTPSender, broker: (any MQTTClient)? = nil,
        time: any TimeSource = SystemTime(), changes: LogbookChanges? = nil
    ) {
        self.plan = plan
        self.logbook = logbook
        self.sender = sender
        self.broker = broker
        self.time = time
        self.changes = changes
        gate = UploadGate(pace: plan.pace)
        acknowledgements = broker.map(BrokerAcknowledgements.init)
    }

    private enum Input: Sendable, Equatable { case rowsChanged, due, stop }

    /// Uploads until the stop (see the contract).
    public func run(_ context: ServiceContext) async throws(ServiceFailure) {
        let inbox = Mailbox<Input>()
        defer { inbox.close() }
        if let changes { inbox.forward(changes.updates()) { _ in .rowsChanged } }
        context.whenStopping { inbox.send(.stop) }
        let listening = acknowledgements.map { waiter in Task { await waiter.listen() } }
        defer { listening?.cancel() }
        var uploader = self
        uploader.notify = context.notify
        var inputs = inbox.messages.makeAsyncIterator()
        while !context.isStopping {
            var wake: Mailbox<Input>.Timer?
            switch await uploader.step() {
            case .worked: continue
            case .stopped:
                await context.stopRequested()
                return
            case .wait(let pause): wake = inbox.wake(after: pause, on: uploader.time, with: .due)
            case .idle: break
            }
            // Nothing to send before this: new rows, the gate's moment, or the stop.
            guard let input = await inputs.next(), input != .stop else { return }
            wake?.cancel()
        }
    }

    /// Sends until nothing is left to send (or a refusal stops it), waiting out the gate
    /// on `time`: a backlog drained.
    public mutating func drain() async -> Stop? {
        while !Task.isCancelled {
            switch await step() {
            case .stopped(let stop): return stop
            case .idle: return nil
            case .worked: continue
            case .wait(let pause): try? await time.sleep(for: pause)
            }
        }
        return nil
    }

    enum Step {
        case worked
        case idle
        /// The gate's next moment is this far off.
        case wait(Duration)
        case stopped(Stop)
    }

    /// One request, or what keeps it from going now.
    mutating func step() async -> Step {
        guard let next = gate.next(after: time.now) else {
            return .stopped(Stop(reason: gate.stopped ?? "stopped"))
        }
        let wait = next - time.now
        if wait > .zero { return .wait(wait) }
        do {
            guard let batch = try nextBatch() else { return .idle }
            let already = delivered.flatMap { $0.kind == batch.kind && $0.last == batch.last ? $0.requests : nil } ?? 0
            let (verdict, accepted) = await send(batch.items, skipping: already)
            delivered = verdict == .accepted ? nil : (batch.kind, batch.last, already + accepted)
            switch verdict {
            case .accepted:
                gate.accepted(at: time.now)
                try logbook.advanceUpload(
                    plan.name, kind: batch.kind, to: batch.last, sent: batch.items.count, skipped: batch.stale,
                    at: time.date)
                if lastError != nil { say(.info("sending again", from: name)) }
                lastError = nil
            case .rejected(let reason):
                gate.accepted(at: time.now)
                try logbook.advanceUpload(
                    plan.name, kind: batch.kind, to: batch.last, sent: 0, skipped: batch.items.count + batch.stale,
                    at: time.date)
                try logbook.recordUploadError(plan.name, "rows \(batch.range) refused: \(reason)", at: time.date)
                say(.warning("the server refused rows \(batch.range): \(reason); skipped", from: name))
            case .retry(let after, let reason):
                let pause = gate.retry(after: after, at: time.now)
                try logbook.recordUploadError(plan.name, reason, at: time.date)
                if reason != lastError {
                    say(.warning("\(reason); trying again in \(Int(pause.seconds)) s (the rows wait)", from: name))
                }
                lastError = reason
            case .refused(let reason):
                gate.refused(reason)
                try logbook.recordUploadError(plan.name, reason, at: time.date)
                say(.error("\(reason); stopped (retrying cannot help)", from: name))
            }
        } catch {
            // The logbook could not be read or written: said, and tried again after the gate's pause.
            say(.error("\(error)", from: name))
            gate.retry(after: nil, at: time.now)
        }
        return .worked
    }

    private func say(_ notice: ServiceNotice) {
        // "[upload.home] sending again": the section, as the journal has always said it.
        var notice = notice
        notice.message = "[upload.\(plan.name)] \(notice.message)"
        notice.source = nil
        notify(notice)
    }

    struct Batch {
        var kind: RowKind
        var items: [UploadItem]
        /// Rows too old to send (`max-age`), passed over.
        var stale: Int
        var last: Int64
        var range: String {
            guard let first = items.first?.id else { return kind.id(last) }
            return first == last ? kind.id(last) : "\(kind.id(first))-\(kind.id(last))"
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
                } else if case .sensor(let reading) = row, !reading.flags.isEmpty, !plan.sendsFlagged {
                    // A flagged reading (warm-up cut short, humid air) is not the map's truth.
                    batch.stale += 1
                } else {
                    batch.items.append(item)
                }
            }
            return batch
        }
        return nil
    }

    /// Sends what `items` make, but the first `skipping` requests (taken already); the first
    /// failure decides. Returns the verdict and how many requests the server took.
    func send(_ items: [UploadItem], skipping: Int = 0) async -> (UploadVerdict, accepted: Int) {
        let messages =
            plan.type == .openSenseMap || plan.type == .sensorCommunity
            ? MeasuredFormats.outgoing(items, plan: plan) : PositionFormats.outgoing(items, plan: plan)
        var accepted = 0
        for message in messages.dropFirst(skipping) {
            let verdict: UploadVerdict
            switch message {
            case .http(let request):
                do {
                    let answer = try await sender.send(request, service: "[upload.\(plan.name)]", timeout: timeout)
                    verdict = UploadVerdict.judge(answer, type: plan.type.rawValue, now: time.date)
                } catch { verdict = .retry(after: nil, "\(error)") }
            case .mqtt(let topic, let payload):
                guard let acknowledgements else { return (.refused("no broker to publish to"), accepted) }
                verdict = await acknowledgements.publish(
                    topic, payload, timeout: timeout, time: time, section: "[upload.\(plan.name)]")
            }
            if verdict != .accepted { return (verdict, accepted) }
            accepted += 1
        }
        return (.accepted, accepted)
    }
}
