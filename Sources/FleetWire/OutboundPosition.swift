/// How much of the position leaves the device in what it publishes or uploads: `exact`,
/// `coarse` (on the `[privacy] outbound-precision` grid) or `none` (no track rows, no
/// coordinates or place name in the others). Part of the wire, so that storage writes an
/// outbound line (`Logbook.OutboxRow.line(showing:grid:)`) without linking the settings
/// that choose it (`[mqtt] position`, `[upload.NAME] position`, `[serve] position`).
public enum OutboundPosition: String, Sendable, CaseIterable {
    case exact, coarse, none
}
