import AirQuality
import Arguments
import Foundation
import Logbook
import Platform
import Plot

/// `airloc log plot`: the logbook's window as one SVG figure (docs/plot.md).
enum LogPlotCommand {
    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let command = LogCommand.spec.name
        // The file's name says the format when --format does not: day.png is a bitmap.
        let named = arguments.value(.output).map { ($0 as NSString).pathExtension.lowercased() }
        let format = arguments.value(.plotFormat, as: DayPlot.Format.self) ?? (named == "png" ? .png : .svg)
        if let named = named.flatMap(DayPlot.Format.init(rawValue:)), named != format {
            throw .usage("--format \(format) with an --output named .\(named): drop one of them", command: command)
        }
        if format == .png && arguments.value(.output) == nil {
            throw .usage("--format png needs --output FILE (a bitmap is not for a terminal)", command: command)
        }
        var options = DayPlot.Options(window: try LogTime.window(arguments))
        options.width = arguments.value(.width, as: Int.self) ?? 800
        options.height = arguments.value(.height, as: Int.self) ?? 480
        options.scale = arguments.value(.scale, as: AQIScale.self) ?? options.scale
        let logbook = try LogCommand.open(context, readOnly: true)
        let gazetteer = try? context.loadGazetteer()
        let output = try LogOutput(arguments)
        let plot = DayPlot(logbook: logbook, gazetteer: gazetteer, options: options)
        let meaning = { (error: any Error) -> CLIError? in
            if let error = error as? PNGRendering.PNGError {
                return CLIError(code: error.missingLibrary ? .unavailable : .ioError, message: error.description)
            }
            return (error as? PlotError).map { CLIError(code: .noInput, message: $0.description) }
        }
        return try output.produce("plot", failure: meaning) {
            if format == .png, let file = output.file {
                // The bitmap needs the whole SVG at once (a 100,000-point day: about 200 kB).
                var svg = ""
                _ = try plot.svg { svg += $0 }
                try PNGRendering.render(svg: svg, width: options.width, height: options.height, to: file.partial.path)
            } else {
                _ = try plot.svg { try output.write(Data($0.utf8)) }
            }
        }
    }
}
