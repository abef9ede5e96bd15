import StoreCore

/// The failures a tester injects: Xcode's `SKTestSession.setSimulatedError(_:forAPI:)`, one per
/// API, and its switch that makes signed data fail verification.
struct FailureInjection: Equatable {
    var failures: [StoreAPI: StoreFailure]
    /// What the store signs while this is on gets a broken signature, and keeps it: a signature
    /// never changes after the fact, so turning the switch off does not mend what was signed.
    var invalidSignatures: Bool

    init(_ settings: TestSettings) {
        failures = settings.failures
        invalidSignatures = settings.invalidSignatures
    }

    /// Throws what the tester injected for `api`, if anything.
    func check(_ api: StoreAPI) throws {
        if let failure = failures[api] { throw failure }
    }

    /// How the signed data the app receives now fails verification, if it should: Xcode's simulated
    /// verification error, which holds while it is set (unlike `invalidSignatures`).
    var verificationFailure: VerificationError? {
        if case .verification(let error)? = failures[.verification] { return error }
        return nil
    }
}
