import Foundation
import Web

/// The picker on the terminal: keys in, the list redrawn after each event, online answers
/// merged as they come — what `airloc pick` runs.
///
/// Contract: the online search is asked only after a 300 ms pause in typing (the seed's
/// debounce: only a pause costs a request), and a newer query cancels an older one; its
/// failure is shown in the list, never ends the picker. The terminal is restored on
/// every way out.
public struct PickerSession: Sendable {
    /// Whether the list may use colour and reverse video.
    public var styled: Bool
    /// The online search for a query (Open-Meteo geocoding for `airloc pick`).
    public var search: @Sendable (String) async throws(WebError) -> [Picker.PlaceRow]

    /// A picker session; `search` asks online.
    public init(styled: Bool, search: @escaping @Sendable (String) async throws(WebError) -> [Picker.PlaceRow]) {
        self.styled = styled
        self.search = search
    }

    /// Runs `picker` on the terminal (raw mode, restored on return) until a row is chosen
    /// or it is cancelled; nil when the terminal cannot be put in raw mode.
    public func run(_ picker: inout Picker) async -> Picker.Action? {
        DisplayWidth.prepare()
        guard RawTerminal.enter() else { return nil }
        defer { RawTerminal.leave() }
        let (events, continuation) = AsyncStream.makeStream(of: PickerEvent.self)
        let reader = KeyReader()
        reader.start(continuation)
        defer { reader.stop() }
        var online: Task<Void, Never>?
        defer { online?.cancel() }
        func redraw() {
            let size = RawTerminal.size()
            let view = PickerView(width: size.columns, height: size.rows, styled: styled)
            RawTerminal.draw(view.lines(picker), cursor: (1, view.cursorColumn(picker)))
        }
        redraw()
        for await event in events {
            let action: Picker.Action
            switch event {
            case .key(let key):
                action = picker.keyPressed(key, pageSize: max(1, RawTerminal.size().rows - 3))
            case .resize: action = .redraw
            case .onlineAnswered(let rows, let generation): action = picker.onlineAnswered(rows, generation: generation)
            case .onlineFailed(let message, let generation):
                action = picker.onlineFailed(message, generation: generation)
            case .inputClosed: return .cancel(.cancelled)
            }
            switch action {
            case .none: continue
            case .redraw: redraw()
            case .cancelOnlineAndRedraw:
                online?.cancel()
                redraw()
            case .searchOnline(let query, let generation):
                online?.cancel()
                online = Task {
                    // The seed's 300 ms debounce: only a pause in typing costs a request.
                    do { try await Task.sleep(for: .milliseconds(300)) } catch { return }
                    do throws(WebError) {
                        let rows = try await search(query)
                        guard !Task.isCancelled else { return }
                        continuation.yield(.onlineAnswered(rows, generation: generation))
                    } catch {
                        guard !Task.isCancelled else { return }
                        continuation.yield(.onlineFailed(error.description, generation: generation))
                    }
                }
                redraw()
            case .choose, .cancel:
                return action
            }
        }
        return .cancel(.cancelled)
    }
}
