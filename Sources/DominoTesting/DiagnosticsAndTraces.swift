@_spi(DominoTesting) import Domino

extension Diagnostic {
    /// A diagnostic made by a test, to check your own diagnostics handler with.
    ///
    /// Domino alone makes the diagnostics it reports; this is for the tests of code
    /// that receives them.
    ///
    /// ```swift
    /// import DominoTesting
    ///
    /// @Test func misuseIsLoggedAsAWarning() {
    ///     let logger = RecordingLogger()
    ///     let handler = makeDiagnosticsHandler(logger: logger)
    ///     handler(.forTesting(.mountAtSelf, message: "content cannot be mounted at itself"))
    ///     #expect(logger.warnings.count == 1)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: What the diagnostic says.
    ///   - repeats: How many repeats it stands for (see ``Domino/Diagnostic/repeats``).
    public static func forTesting(_ code: Code, message: String, repeats: Int = 0) -> Diagnostic {
        Diagnostic(code, message: message, repeats: repeats)
    }
}

extension TraceRecord {
    /// A trace record made by a test, to check your own trace sink with.
    ///
    /// ```swift
    /// import DominoTesting
    ///
    /// @Test func sinkCountsDeliveries() {
    ///     let sink = DeliveryCounter()
    ///     sink.receive(.forTesting(.delivered, event: "ContentDidLoad", node: "container"))
    ///     #expect(sink.deliveries == 1)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - event: The event, as Domino names it: its type, or its quoted name.
    ///   - node: The node's label.
    public static func forTesting(_ kind: Kind, event: String, node: String) -> TraceRecord {
        TraceRecord(kind: kind, event: event, node: node)
    }
}
