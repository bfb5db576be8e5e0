import Airloc
import Arguments
import FieldLog
import Platform
import Sensors
import TerminalUI

/// `airloc sense`: one reading of every configured sensor (or the one `--sensor` names).
enum SenseCommand {
    static let spec = CommandSpec(
        name: "sense",
        summary: "Read the sensors: particulate, CO₂ and climate; wake, warm up, sample, report the mean",
        discussion: """
            [sensor] is the particulate sensor on [sensor] device (AIRLOC_SENSOR_DEVICE; default /dev/airloc-pm, else
            /dev/ttyUSB0): SDS011, Plantower PMS5003/5003T/A003/7003/1003/3003 or Sensirion SPS30, woken, warmed up for
            warm-up-seconds, sampled for sample-seconds and put back to sleep (Ctrl-C too) unless sleep-between = no.
            While `log run` holds a port, the logger's latest reading is shown, the port untouched. Each [sensor.NAME] adds
            a CO₂ or climate sensor: mh-z19, senseair-s8 or scd30 on a serial device, or the kernel's driver through
            iio (bme280, bmp280, bme680, scd30, scd4x, dht11) or hwmon (sht3x, sht4x, htu21). All are read at once;
            one that fails does not stop the others (docs/sensors.md).
            Exit status: 0 every reading; 69 a sensor gave no valid frame within its timeout; 74 a device cannot be
            opened or went away; 75 the logger holds it and logged nothing yet; 78 a bad [sensor] or [sensor.NAME];
            130/143 interrupted.
            """,
        options: [
            .json.saying("print one JSON document (schema airloc.sense/1)"),
            .sensor,
        ])

    static let command = Command(spec: spec) { context throws(CLIError) in try await run(context) }

    static func run(_ context: CommandContext) async throws(CLIError) -> ExitCode {
        let settings = context.configuration
        let (particulate, climate) = try EverySensor.chosen(settings, only: context.arguments.value(.sensor))
            .mapError { CLIError.config($0.description) }.get()
        let progress = WarmUpProgress(particulate: particulate, climate: climate.map(\.1)).map { progress in
            Task { [console = context.console] in await progress.show(on: console) }
        }
        // A signal puts a woken sensor to sleep first; the logger's sensor is never touched.
        let (readings, signal) = await EverySensor.sense(
            particulate: particulate, climate: climate, settings: settings)
        progress?.cancel()
        await progress?.value
        if let signal {
            context.console.err(SerialSensor.interruptedNotice)
            return ExitCode(rawValue: 128 + signal) ?? .interrupted
        }
        // One sensor asked for, or only [sensor]: its failure is the command's, as before.
        if readings.count == 1, case .failure(let failure) = readings[0].outcome { throw CLIError(failure) }
        var text = ""
        var failed: CLIError?
        for reading in readings {
            switch reading.outcome {
            case .success(.particulate(let measured)):
                if let held = SensorText.held(measured) { context.console.err("airloc: \(held)\n") }
                text += SensorText(console: context.console).render(measured.sample)
            case .success(.climate(let sample)):
                if let logged = reading.logged {
                    context.console.err(
                        "airloc: \(reading.name): \(SensorText.held(pid: logged.pid, ageSeconds: logged.ageSeconds))\n")
                }
                text += SensorText(console: context.console).render(sample, name: reading.name)
            case .failure(let failure):
                failed = failed ?? CLIError(failure)
                context.console.err("airloc: \(reading.name): \(CLIError(failure).message)\n")
            }
        }
        let document = SenseJSON(readings)
        context.console.out(context.arguments.has(.json) ? JSONDocument.encode(document) : text)
        return failed?.code ?? .ok
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
