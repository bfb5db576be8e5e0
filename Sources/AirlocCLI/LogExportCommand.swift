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
        guard let formatText = arguments.value(.format) else {
            throw .usage("export needs --format ndjson, csv, gpx or geojson", command: command)
        }
        guard let format = LogExport.Format(rawValue: formatText) else {
            throw .usage(
                "unknown --format '\(formatText.prefix(40))': expected ndjson, csv, gpx or geojson", command: command)
        }
        let kindText = arguments.value(.kind) ?? "all"
        guard let kind = LogExport.Kind(rawValue: kindText) else {
            throw .usage(
                "unknown --kind '\(kindText.prefix(40))': expected track, air, sensor or all", command: command)
        }
        let window = try LogTime.window(arguments)
        let logbook = try LogCommand.open(context, readOnly: true)

        var file: StreamedFile?
        if let output = arguments.value(.output) {
            do { file = try StreamedFile(URL(fileURLWithPath: output)) } catch {
                throw CLIError(code: .ioError, message: error.description)
            }
        }
        let target = file?.descriptor ?? StandardStream.output
        let shownPath = file?.partial.path ?? "stdout"
        do {
            _ = try LogExport.write(logbook, format: format, kind: kind, window: window) { chunk in
                try StandardStream.writeAll(chunk, to: target, path: shownPath)
            }
        } catch {
            file?.abandon()
            // The reader went away (`| head`): not a failure of the export.
            if let error = error as? FileError, error.isBrokenPipe { return .ok }
            throw CLIError(code: .ioError, message: "export failed: \(error)")
        }
        do { try file?.commit() } catch { throw CLIError(code: .ioError, message: error.description) }
        return .ok
    }
}
