import StoreCore

/// The failures a tester injects: Xcode's `SKTestSession.setSimulatedError(_:forAPI:)`, one per
/// API, and its switch that makes signed data fail verification.
struct FailureInjection: Equatable {
    var failures: [StoreAPI: StoreFailure]
    var invalidSignatures: Bool

    init(_ settings: TestSettings) {
        failures = settings.failures
        invalidSignatures = settings.invalidSignatures
    }

    /// Throws what the tester injected for `api`, if anything.
    func check(_ api: StoreAPI) throws {
        if let failure = failures[api] { throw failure }
    }

    /// How the signed data the app receives fails verification, if it should: an error injected
    /// for verification wins over the switch, which breaks the signature.
    var verificationFailure: VerificationError? {
        if case .verification(let error)? = failures[.verification] { return error }
        return invalidSignatures ? .invalidSignature : nil
    }
}
