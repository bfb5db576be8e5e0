import Gazetteer
import Geo

/// The terminal search sheet's logic (seeds 000/001): a query, the rows it shows, the
/// highlighted row, and the completer's state — with no terminal, clock or network in it.
///
/// Contract: a state machine in the swift-nio style — one mutating func per event, each
/// returning the ``Action`` the driver performs (redraw, start or cancel the debounced
/// online search, finish). Offline answers are computed synchronously on each keystroke
/// (they take microseconds); the online fallback runs only when nothing matches offline
/// and is identified by a generation number, so an answer for an older query is dropped.
public struct Picker {
    /// One line of the list.
    public enum Row: Equatable, Sendable {
        /// "Use current location" (seed 001), shown while the query is empty.
        case currentLocation
        case place(PlaceRow)
    }

    /// A place the picker lists.
    public struct PlaceRow: Equatable, Sendable {
        /// The place.
        public var place: Place
        /// Typos forgiven to match it.
        public var typos = 0
        /// From Open-Meteo's geocoding rather than the device's data.
        public var online = false
        /// Metres from the user's current or chosen location, when known.
        public var distance: Double?

        /// A row of `place`.
        public init(place: Place, typos: Int = 0, online: Bool = false, distance: Double? = nil) {
            self.place = place
            self.typos = typos
            self.online = online
            self.distance = distance
        }
    }

    /// What the status line says (seed 001's completer states).
    public enum Status: Equatable, Sendable {
        /// Fewer than 2 characters: the popular cities.
        case idle
        case results
        /// Waiting for the online fallback.
        case searching
        case noResults
        /// The online fallback failed; the offline rows (if any) stay.
        case error(String)
    }

    /// What the session does.
    public enum Action: Equatable, Sendable {
        case none
        case redraw
        /// Start the online search for `query` after the debounce (cancelling any other).
        case searchOnline(query: String, generation: Int)
        /// Cancel a pending online search and redraw.
        case cancelOnlineAndRedraw
        case choose(Row)
        /// Leave without choosing: Esc (`cancelled`) or Ctrl-C (`interrupted`).
        case cancel(Leaving)
    }

    /// How the person left the picker without choosing.
    public enum Leaving: Equatable, Sendable {
        case cancelled
        case interrupted
    }

    private enum State {
        case idle
        case offline
        case waitingOnline(generation: Int)
        case onlineFailed(String)
        case noResults
    }

    /// What is typed.
    public private(set) var query = ""
    /// What is listed.
    public private(set) var rows: [Row] = []
    /// The selected row's index.
    public private(set) var selected = 0
    private var state = State.idle
    private var generation = 0

    private let search: @Sendable (String) -> [PlaceRow]
    private let popular: [PlaceRow]
    private let online: Bool

    /// `search` answers a query offline; `popular` is the idle list; `online` allows
    /// the fallback.
    public init(popular: [PlaceRow], online: Bool, search: @escaping @Sendable (String) -> [PlaceRow]) {
        self.popular = popular
        self.online = online
        self.search = search
        rows = Self.idleRows(popular)
    }

    /// Idle, searching, no results, an error, or results.
    public var status: Status {
        switch state {
        case .idle: return .idle
        case .offline: return .results
        case .waitingOnline: return .searching
        case .onlineFailed(let message): return .error(message)
        case .noResults: return .noResults
        }
    }

    /// The selected row.
    public var selectedRow: Row? { rows.indices.contains(selected) ? rows[selected] : nil }

    // MARK: Events

    /// A key was pressed.
    public mutating func keyPressed(_ key: TerminalKey, pageSize: Int) -> Action {
        switch key {
        case .text(let text):
            // Control characters never reach here (KeyDecoder); newlines in a paste end it.
            return queryChanged(query + text.prefix { $0 != "\n" && $0 != "\r" })
        case .backspace:
            return query.isEmpty ? .none : queryChanged(String(query.dropLast()))
        case .clearLine:
            return query.isEmpty ? .none : queryChanged("")
        case .up: return move(by: -1)
        case .down: return move(by: 1)
        case .pageUp: return move(by: -max(1, pageSize))
        case .pageDown: return move(by: max(1, pageSize))
        case .tab:
            guard case .place(let row)? = selectedRow, row.place.name != query else { return .none }
            return queryChanged(row.place.name)
        case .enter:
            return selectedRow.map { .choose($0) } ?? .none
        case .escape: return .cancel(.cancelled)
        case .interrupt: return .cancel(.interrupted)
        }
    }

    /// The online fallback answered.
    public mutating func onlineAnswered(_ found: [PlaceRow], generation answered: Int) -> Action {
        guard case .waitingOnline(let current) = state, current == answered else { return .none }
        let known = Set(
            rows.compactMap { row -> Int? in
                if case .place(let place) = row { return place.place.id }
                return nil
            })
        rows += found.filter { !known.contains($0.place.id) }.map { .place($0) }
        state = rows.isEmpty ? .noResults : .offline
        return .redraw
    }

    /// The online fallback failed (unreachable, rate-limited, ...).
    public mutating func onlineFailed(_ message: String, generation answered: Int) -> Action {
        guard case .waitingOnline(let current) = state, current == answered else { return .none }
        state = .onlineFailed(message)
        return .redraw
    }

    // MARK: Helpers

    private mutating func queryChanged(_ text: String) -> Action {
        query = String(text.prefix(200))
        generation += 1
        selected = 0
        let wasWaiting: Bool
        if case .waitingOnline = state { wasWaiting = true } else { wasWaiting = false }
        guard Gazetteer.isSearchable(query) else {
            state = .idle
            rows = Self.idleRows(popular)
            return wasWaiting ? .cancelOnlineAndRedraw : .redraw
        }
        rows = search(query).map { .place($0) }
        if !rows.isEmpty {
            state = .offline
            return wasWaiting ? .cancelOnlineAndRedraw : .redraw
        }
        guard online else {
            state = .noResults
            return wasWaiting ? .cancelOnlineAndRedraw : .redraw
        }
        state = .waitingOnline(generation: generation)
        return .searchOnline(query: query, generation: generation)
    }

    private mutating func move(by offset: Int) -> Action {
        guard !rows.isEmpty else { return .none }
        let target = min(max(selected + offset, 0), rows.count - 1)
        guard target != selected else { return .none }
        selected = target
        return .redraw
    }

    private static func idleRows(_ popular: [PlaceRow]) -> [Row] {
        [.currentLocation] + popular.map { .place($0) }
    }
}
