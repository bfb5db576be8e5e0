import Airloc
import Arguments
import Foundation
import Gazetteer

/// `airloc data`: what place data is loaded, and rebuilding it from GeoNames dumps.
enum DataCommand {
    static let spec = CommandSpec(
        name: "data", summary: "Show or rebuild the offline place data", options: [], maxPositionals: 1,
        actions: [
            ActionSpec(
                name: "info", summary: "where the place data was found, its source, build date and counts",
                discussion: "--verify also checks every reference in the file (exit 65 when damaged).",
                own: [
                    .json,
                    .verify,
                ]),
            ActionSpec(
                name: "import", summary: "build gazetteer.bin from GeoNames dump files",
                required: [.from],
                discussion: """
                    DIR holds cities500.txt, admin1CodesASCII.txt, countryInfo.txt and, when present,
                    alternateNamesV2.txt from download.geonames.org/export/dump. Writes FILE (default
                    $XDG_DATA_HOME/airloc/gazetteer.bin, which airloc then prefers). The same files give the
                    same bytes; SOURCE_DATE_EPOCH sets the build date in the file.
                    """,
                own: [
                    .from,
                    .output.saying("where to write gazetteer.bin"),
                    .source,
                ]),
        ],
        defaultAction: "info")

    static let command = Command(spec: spec) { context throws(CLIError) in
        let actions = [CommandAction(spec.actions[0], run: info), CommandAction(spec.actions[1], run: build)]
        return try await CommandAction.run(actions, of: spec, context.arguments, context)
    }

    static func info(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let gazetteer = try context.loadGazetteer()
        if context.arguments.has(.verify) {
            let problems = gazetteer.verify()
            guard problems.isEmpty else {
                throw CLIError(
                    code: .dataError,
                    message: "place data \(gazetteer.location) is damaged:\n  "
                        + problems.joined(separator: "\n  ")
                        + "\nRebuild it with `airloc data import` or reinstall airloc.")
            }
        }
        let document = PlaceDataInfoJSON(gazetteer, verified: context.arguments.has(.verify))
        context.console.out(context.arguments.has(.json) ? JSONDocument.encode(document) : document.text)
        return .ok
    }

    static func build(_ context: CommandContext) throws(CLIError) -> ExitCode {
        guard let from = context.arguments.value(.from) else {
            throw .usage("import needs --from DIR (the folder with the GeoNames files)", command: spec.name)
        }
        let output =
            context.arguments.value(.output).map { URL(fileURLWithPath: $0) }
            ?? PlaceData.userDataFile(environment: context.environment)
        let builder: GazetteerBuilder
        do {
            builder = try GazetteerBuilder.fromDumps(
                in: URL(fileURLWithPath: from),
                source: context.arguments.value(.source) ?? "GeoNames dump files from \(from)",
                builtAt: GazetteerBuilder.buildDate(environment: context.environment))
        } catch let error as GazetteerError {
            throw CLIError(code: .dataError, message: error.description)
        } catch {
            throw CLIError(code: .dataError, message: "\(error)")
        }
        do {
            try FileManager.default.createDirectory(
                at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
            try builder.write(to: output)
        } catch {
            throw CLIError(code: .ioError, message: "\(error)")
        }
        context.console.err("wrote \(builder.places.count) places to \(output.path)\n")
        return .ok
    }
}
