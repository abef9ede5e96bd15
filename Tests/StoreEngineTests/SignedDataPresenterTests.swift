import Foundation
import Testing
import StorefrontTestSupport
import StoreCore
import StoreSigning
@testable import StoreEngine

@Suite("Signed data presenter: signing, injected failures, what is kept")
struct SignedDataPresenterTests {
    static let identity = try! StoreIdentity.ephemeral()
    static let payload: JSONValue = ["productId": "com.example.pro", "signedDate": .number("1780000000000")]

    static func injection(_ change: (inout TestSettings) -> Void) -> FailureInjection {
        var settings = TestSettings()
        change(&settings)
        return FailureInjection(settings)
    }

    static func verifies(_ jws: String) -> Bool {
        JWSVerifier(trustedRoots: [identity.certificate]).verify(jws, at: .now).isVerified
    }

    @Test("what it signs verifies; while invalid signatures are on, it is broken for good")
    func signsAndBreaks() throws {
        let presenter = SignedDataPresenter(signer: Self.identity.signer)
        let jws = try presenter.sign(Self.payload)
        #expect(Self.verifies(jws))
        #expect(SignedDataPresenter.asSigned(jws, Self.injection { _ in }) == jws)
        let broken = SignedDataPresenter.asSigned(jws, Self.injection { $0.invalidSignatures = true })
        #expect(broken != jws && broken.count == jws.count)
        #expect(!Self.verifies(broken))
    }

    @Test("a simulated verification error is named in the header of the same payload, signed again; the token stays valid")
    func presentsSimulatedVerificationErrors() throws {
        var presenter = SignedDataPresenter(signer: Self.identity.signer)
        let jws = try presenter.sign(Self.payload)
        #expect(presenter.present(jws, Self.injection { _ in }) == jws)
        let verifier = JWSVerifier(trustedRoots: [Self.identity.certificate])
        for failure in VerificationError.allCases {
            let presented = presenter.present(jws, Self.injection { $0.failures[.verification] = .verification(failure) })
            let result = verifier.verify(presented, at: .now)
            #expect(presented != jws && result.isVerified, "\(failure)")
            #expect(result.payload == verifier.verify(jws, at: .now).payload, "\(failure)")
            let header = String(decoding: result.header ?? Data(), as: UTF8.self)
            #expect(header.contains("\"\(VerificationError.simulationHeader)\":\"\(failure.rawValue)\""), "\(failure)")
        }
    }

    @Test("tokens are read again only where the ledger moved")
    func tokensAreKeptWhileTheStampStands() {
        var presenter = SignedDataPresenter(signer: Self.identity.signer)
        var reads: [[Int64]] = []
        func read(_ ids: [Int64]) -> [Int64: String] {
            reads.append(ids)
            return Dictionary(uniqueKeysWithValues: ids.map { ($0, "jws\($0)") })
        }
        let stamp = ChangeStamp(version: 1, written: 1), moved = ChangeStamp(version: 1, written: 2)
        let tokens = [presenter.tokens([1, 2], at: stamp, read: read), presenter.tokens([2, 3], at: stamp, read: read),
                      presenter.tokens([1], at: moved, read: read), presenter.tokens([1], at: nil, read: read)]
        #expect(tokens == [[1: "jws1", 2: "jws2"], [1: "jws1", 2: "jws2", 3: "jws3"], [1: "jws1"], [1: "jws1"]])
        #expect(reads == [[1, 2], [3], [1], [1]])
    }

    @Test("renewal info is signed again only when what it says changed, not when only its date did")
    func renewalInfoIsKept() throws {
        var presenter = SignedDataPresenter(signer: Self.identity.signer)
        let storefront = try #require(Repo.catalog.storefront("USA"))
        let terms = RenewalTerms(catalog: Repo.catalog, appTransactionID: "1")
        var record = Fixture.record(product: ID.proMonthly)
        record.groupID = ID.group
        var built = 0
        func sign(_ record: SubscriptionRecord, at date: Date) throws -> String {
            try presenter.signedRenewalInfo(record, storefront: storefront, environment: .xcode) {
                built += 1
                return terms.renewalInfo(record, storefront: storefront, environment: .xcode, at: date)
            }
        }
        let first = try sign(record, at: Date(timeIntervalSince1970: 1_780_000_000))
        #expect(Self.verifies(first))
        let again = try sign(record, at: Date(timeIntervalSince1970: 1_780_000_100))
        #expect(again == first)
        #expect(built == 1)
        var unchanged = record
        unchanged.latestTransactionID = 2  // not in the renewal info
        let same = try sign(unchanged, at: Date(timeIntervalSince1970: 1_780_000_200))
        #expect(same == first)
        #expect(built == 2)
        var off = record
        off.willAutoRenew = false
        let changed = try sign(off, at: Date(timeIntervalSince1970: 1_780_000_300))
        #expect(changed != first)
    }
}
