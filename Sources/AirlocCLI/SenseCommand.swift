import Airloc
import Arguments
import FieldLog
import Platform
import Sensors
import TerminalUI

/// `airloc sense`: one reading of the particulate sensor on the serial port.
enum SenseCommand {
    static let spec = CommandSpec(
        name: "sense", summary: "Read the particulate sensor: wake, warm up, sample, report the mean",
        discussion: """
            The sensor is [sensor] model on [sensor] device (AIRLOC_SENSOR_DEVICE; default /dev/airloc-pm, else
            /dev/ttyUSB0): SDS011, Plantower PMS5003/5003T/A003/7003/1003/3003 or Sensirion SPS30 (docs/sensors.md),
            woken, warmed up for warm-up-seconds, sampled for sample-seconds and put back to sleep (Ctrl-C too) unless
            sleep-between = no. While `log run` holds it, the logger's latest reading is shown, the port untouched.
            Exit status: 0 a reading; 69 no valid frame within [sensor] timeout; 74 the device cannot be opened or
            went away; 75 the logger holds it and logged nothing yet; 78 a bad [sensor]; 130/143 interrupted.
            """,
        options: [.flag(.json, "print one JSON document (schema airloc.sense/1)")])

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        guard let plan = context.configuration.sensor.plan else {
            throw .config("no sensor configured: set [sensor] model (sds011, pms5003, ... sps30; docs/sensors.md)")
        }
        // A signal puts a woken sensor to sleep first; the logger's sensor is never touched.
        let (outcome, signal) = await MeasuredNow.sense(plan, settings: context.configuration)
        if let signal {
            context.console.err(SerialSensor.interruptedNotice)
            return ExitCode(rawValue: 128 + signal) ?? .interrupted
        }
        let reading = try outcome.mapError(CLIError.init).get()
        if let held = SensorText.held(reading) { context.console.err("airloc: \(held)\n") }
        context.console.out(
            context.arguments.has(.json)
                ? JSONDocument.encode(SenseJSON(reading)) : SensorText(console: context.console).render(reading.sample))
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
            case .gone, .other, .held: advice = ""
            }
            self.init(code: kind == .held ? .tempFail : .ioError, message: reason + advice)
        }
    }
}
