import Airloc
import Gazetteer

extension PlaceData {
    /// The gazetteer for a command: a missing or broken file is exit 72 with what airloc
    /// tried.
    static func loadGazetteer(environment: [String: String]) throws(CLIError) -> Gazetteer {
        do { return try load(environment: environment) } catch {
            throw CLIError(code: .osFile, message: error.description)
        }
    }
}
