import Foundation
import Location
import Platform

/// The follower's rules (``LocationFollower``) applied to a provider's updates as they
/// come, on the thread that brings them: the events a ``LocationSession/Following`` hands
/// on, with no task woken between the receiver and the loop that reads them.
///
/// Contract:
/// - Each update is judged under one lock and its event handed to `deliver` at once,
///   outside the lock (ending the events may stop the relay), one thread at a time and in
///   the order the updates came; nil says the events ended (the provider's updates ended,
///   or `maximumFixes` were reported).
/// - When the follower asks the rest of the chain to stand in, the question runs as a task;
///   updates that arrive meanwhile wait for its answer and are judged after it, as the
///   one loop the session ran before judged them.
/// - ``cancel()`` stops the provider and the question, and nothing more is handed on.
final class FollowRelay: Sendable {
    private struct State: Sendable {
        var follower: LocationFollower
        /// The rest of the chain is being asked: updates wait in `queued`.
        var asking: Task<Void, Never>?
        var queued: [LocationUpdate] = []
        /// The provider's updates ended (while a question ran).
        var ended = false
        /// Nothing more is handed on.
        var finished = false
        /// Stops the provider's updates.
        var stopProvider: (@Sendable () -> Void)?
        /// Events judged and not handed on yet (nil: the end), in order.
        var outbox: [FollowEvent?] = []
        /// A thread is handing the outbox on: the others only add to it.
        var delivering = false
    }
    private let state: Lock<State>
    private let fallbacks: LocationChain
    private let time: any TimeSource
    private let deliver: @Sendable (FollowEvent?) -> Void

    /// A relay of `follower`'s events to `deliver`, asking `fallbacks` when it says so.
    init(
        follower: LocationFollower, fallbacks: LocationChain, time: any TimeSource,
        deliver: @escaping @Sendable (FollowEvent?) -> Void
    ) {
        state = Lock(State(follower: follower))
        (self.fallbacks, self.time, self.deliver) = (fallbacks, time, deliver)
    }

    /// Starts relaying `provider`'s updates (pushed from its thread when it has one).
    func start(_ provider: any LocationProvider) {
        let stop: @Sendable () -> Void
        if let signal = provider.pushUpdates(to: { [self] in received($0) }) {
            stop = { signal.set() }
        } else {
            let task = Task { [self] in
                for await update in provider.updates() { received(update) }
                received(nil)
            }
            stop = { task.cancel() }
        }
        let stopNow = state.withLock { state in
            state.stopProvider = stop
            return state.finished
        }
        if stopNow { stop() }
    }

    /// Stops the provider and any question; nothing more is handed on.
    func cancel() {
        let (stop, asking) = state.withLock { state in
            state.finished = true
            return (state.stopProvider, state.asking)
        }
        stop?()
        asking?.cancel()
    }

    /// An update of the provider (nil: its updates ended).
    func received(_ update: LocationUpdate?) {
        let stop = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished else { return nil }
            guard state.asking == nil else {
                if let update { state.queued.append(update) } else { state.ended = true }
                return nil
            }
            guard let update else {
                finish(&state)
                return nil
            }
            return apply(state.follower.received(update, at: time.date), to: &state)
        }
        flush()
        stop?()
    }

    /// The rest of the chain answered (nil: it could not say).
    private func answered(_ answer: LocationChain.Answer?) {
        let stop = state.withLock { state -> (@Sendable () -> Void)? in
            state.asking = nil
            guard !state.finished else { return nil }
            var stop: (@Sendable () -> Void)?
            if let answer {
                stop = apply(
                    state.follower.fallbackAnswered(answer.fix, provider: answer.provider, at: time.date), to: &state)
            }
            while state.asking == nil, !state.finished, !state.queued.isEmpty {
                let update = state.queued.removeFirst()
                stop = apply(state.follower.received(update, at: time.date), to: &state) ?? stop
            }
            if state.asking == nil, !state.finished, state.ended { finish(&state) }
            return stop
        }
        flush()
        stop?()
    }

    /// Hands the outbox on, unless another thread is at it (it then hands on these too).
    private func flush() {
        while true {
            let batch = state.withLock { state -> [FollowEvent?]? in
                guard !state.delivering, !state.outbox.isEmpty else { return nil }
                state.delivering = true
                defer { state.outbox.removeAll() }
                return state.outbox
            }
            guard let batch else { return }
            for event in batch { deliver(event) }
            state.withLock { $0.delivering = false }
        }
    }

    /// Puts what `action` says in the outbox (under the lock, so events keep their order);
    /// returns the provider's stop when the events are over.
    private func apply(_ action: LocationFollower.Action, to state: inout State) -> (@Sendable () -> Void)? {
        switch action {
        case .none: return nil
        case .report(let event):
            state.outbox.append(event)
            return nil
        case .reportAndFinish(let event):
            state.outbox.append(event)
            finish(&state)
            return state.stopProvider
        case .reportAndAskFallback(let event):
            state.outbox.append(event)
            let fallbacks = self.fallbacks
            state.asking = Task { [self] in
                answered(try? await fallbacks.locate(mayRun: { _ in nil }))
            }
            return nil
        }
    }

    private func finish(_ state: inout State) {
        state.finished = true
        state.outbox.append(nil)
    }
}
