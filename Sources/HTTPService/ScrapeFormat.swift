import Platform

extension MetricsExposition {
    /// `request` asks for OpenMetrics (its `Accept`), rather than the text format 0.0.4.
    public static func asksOpenMetrics(_ request: ServedRequest) -> Bool {
        asksOpenMetrics(accept: request.headers["accept"])
    }
}
