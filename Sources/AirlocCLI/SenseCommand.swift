import Airloc
import Arguments
import Platform
import Sensors
import TerminalUI

/// `airloc sense`: one reading of the particulate sensor on the serial port.
enum SenseCommand {
    static let spec = CommandSpec(
        name: "sense", summary: "Read the particulate sensor: wake, warm up, sample, report the mean",
        discussion: """
            The sensor is [sensor] model on [sensor] device (AIRLOC_SENSOR_DEVICE; default /dev/airloc-pm,
            else /dev/ttyUSB0): SDS011, Plantower PMS5003/5003T/A003/7003/1003/3003 or Sensirion SPS30
            (docs/sensors.md). It is woken, warmed up for [sensor] warm-up-seconds, sampled for
            sample-seconds, and put back to sleep unless sleep-between = no. A sensor that does not
            answer within [sensor] timeout fails then, without waiting out the warm-up.
            Exit status: 0 a reading; 69 the sensor did not answer (or sent no valid frame); 74 the
            device cannot be opened or went away; 78 no sensor configured, or a bad [sensor] line.
            """,
        options: [.flag(.json, "print one JSON document (schema airloc.sense/1)")])

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        guard let plan = context.configuration.sensor.plan else {
            throw .config("no sensor configured: set [sensor] model (sds011, pms5003, ... sps30; docs/sensors.md)")
        }
        // Ctrl-C or SIGTERM cancels the reading, which puts an answering sensor to sleep on
        // its way out: dying at once would leave its fan and laser running.
        let (outcome, signal) = await SignalWatch.untilSignalled { await SerialSensor(plan: plan).reading() }
        if let signal {
            context.console.err(SerialSensor.interruptedNotice)
            return ExitCode(rawValue: 128 + signal) ?? .interrupted
        }
        let sample = try outcome.mapError(CLIError.init).get()
        let json = context.arguments.has(.json)
        context.console.out(
            json ? JSONDocument.encode(SenseJSON(sample)) : SensorText(console: context.console).render(sample))
        return .ok
    }
}

extension CLIError {
    /// A failed reading: what went wrong and what to do, with its exit status.
    init(_ failure: SensorFailure) {
        switch failure {
        case .noAnswer, .notASensor, .silent, .invalidFrames:
            self.init(
                code: .unavailable,
                message: failure.description + "; check [sensor] model, the wiring and the power (`airloc doctor`)")
        case .device(let path, let reason, let kind):
            let advice: String
            switch kind {
            case .permission: advice = "; " + DeviceAccess(path: path).remedy
            case .missing: advice = " (is the sensor plugged in? [sensor] device, AIRLOC_SENSOR_DEVICE)"
            case .busy: advice = "; another program (gpsd probing it?) has \(path) open"
            case .gone, .other: advice = ""
            }
            self.init(code: .ioError, message: reason + advice)
        }
    }
}
