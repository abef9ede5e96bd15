import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Failure injection (plain values)")
struct FailureInjectionTests {
    @Test("an error injected for one API is thrown by that API only")
    func perAPI() {
        var settings = TestSettings()
        settings.failures[.purchase] = .storeKit(.networkError)
        let injected = FailureInjection(settings)
        #expect(throws: StoreFailure.storeKit(.networkError)) { try injected.check(.purchase) }
        #expect(throws: Never.self) { try injected.check(.loadProducts) }
    }

    @Test("an error injected for verification applies to what is handed out while set; invalid signatures are made when signing")
    func verification() {
        var settings = TestSettings()
        #expect(FailureInjection(settings).verificationFailure == nil)
        settings.invalidSignatures = true
        #expect(FailureInjection(settings).verificationFailure == nil)
        #expect(FailureInjection(settings).invalidSignatures)
        settings.failures[.verification] = .verification(.invalidCertificateChain)
        #expect(FailureInjection(settings).verificationFailure == .invalidCertificateChain)
    }
}
