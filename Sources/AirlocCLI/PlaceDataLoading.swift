import Airloc
import Gazetteer

extension PlaceData {
    /// The gazetteer for a command: a missing or broken file is exit 72 with what airloc
    /// tried.
    static func loadGazetteer(environment: [String: String]) throws(CLIError) -> Gazetteer {
        do { return try load(environment: environment) } catch {
            throw CLIError(code: .osFile, message: error.description + remedy(for: error))
        }
    }

    /// What the user can do about a place data problem.
    static func remedy(for error: GazetteerError) -> String {
        switch error {
        case .notFound: return "; set AIRLOC_DATA to the file or reinstall airloc"
        case .corrupt, .otherVersion: return "; reinstall airloc or rebuild it with `airloc data import`"
        case .unreadable, .badInput: return ""
        }
    }
}
