import Arguments
import Foundation
import Geo
import Logbook
import Platform

/// `airloc log export`: the logbook streamed as NDJSON, CSV, GPX or GeoJSON.
///
/// Contract: constant memory for any size; `--output FILE` is written beside itself and
/// renamed into place when complete (mode 0600: it holds exact positions), so a reader
/// never sees half an export and an interrupted export leaves no half file.
enum LogExportCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let command = LogCommand.spec.name
        guard let format = arguments.value(.exportFormat, as: LogExport.Format.self) else {
            throw .usage("export needs --format ndjson, csv, gpx or geojson", command: command)
        }
        let kind = arguments.value(.kind, as: LogExport.Kind.self) ?? .all
        let window = try LogTime.window(arguments)
        let logbook = try LogCommand.open(context, readOnly: true)

        let output = try LogOutput(arguments)
        return try output.produce("export") {
            _ = try LogExport.write(logbook, format: format, kind: kind, window: window) { try output.write($0) }
        }
    }
}
