/// The airloc release, shown by `--version` and sent as the User-Agent product token.
public enum AirlocVersion {
    public static let string = "0.2.0"
}
