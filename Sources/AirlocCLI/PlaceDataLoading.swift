import Airloc
import Arguments
import Gazetteer
import Platform

/// The place data files one invocation loaded, so that it can say afterwards whether any
/// lookup met damage in them (``GazetteerDamage``): what was printed then came from a
/// damaged file.
final class LoadedPlaceData: Sendable {
    private let loaded = Lock<[Gazetteer]>([])

    /// The first loaded file a lookup found damaged, if any.
    var damaged: GazetteerDamage? { loaded.withLock { $0.first(where: \.damageDetected)?.damage } }

    func record(_ gazetteer: Gazetteer) { loaded.withLock { $0.append(gazetteer) } }
}

extension CommandContext {
    /// The gazetteer for a command: a missing or broken file is exit 72 with what airloc
    /// tried.
    func loadGazetteer() throws(CLIError) -> Gazetteer {
        do {
            let gazetteer = try PlaceData.load(environment: environment)
            placeData.record(gazetteer)
            return gazetteer
        } catch {
            throw CLIError(code: .osFile, message: error.description + PlaceData.remedy(for: error))
        }
    }
}

extension PlaceData {
    /// What the user can do about a place data problem.
    static func remedy(for error: GazetteerError) -> String {
        switch error {
        case .notFound: return "; set AIRLOC_DATA to the file or reinstall airloc"
        case .corrupt, .otherVersion: return "; reinstall airloc or rebuild it with `airloc data import`"
        case .unreadable, .badInput: return ""
        }
    }
}
