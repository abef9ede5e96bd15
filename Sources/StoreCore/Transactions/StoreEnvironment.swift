/// The server environment signed data names: `environment` in transactions and renewal info,
/// `receiptType` in AppTransaction. Apple's `SignedDataVerifier` checks signatures only for
/// `Sandbox` and `Production`, and requires the app's Apple ID in `Production`.
public enum StoreEnvironment: String, Sendable, CaseIterable {
    case sandbox = "Sandbox", production = "Production", xcode = "Xcode", localTesting = "LocalTesting"

    /// Storefront's default: test purchases, as a team's backend sees them from TestFlight and the
    /// sandbox, and the only non-production environment in which Apple's verifier checks signatures.
    public static let standard = StoreEnvironment.sandbox

    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
