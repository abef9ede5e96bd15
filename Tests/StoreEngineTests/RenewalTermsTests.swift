import Foundation
import Testing
import StorefrontTestSupport
import StoreCore
@testable import StoreEngine

@Suite("Renewal terms: what a subscription renews to, from the catalog (plain values)")
struct RenewalTermsTests {
    static let terms = RenewalTerms(catalog: Repo.catalog, appTransactionID: "742")

    @Test("renewal info names the product it renews to, its catalog price, the install and the environment")
    func renewalInfo() throws {
        let storefront = try #require(Repo.catalog.storefront("USA"))
        var record = Fixture.record(product: ID.proMonthly)
        record.autoRenewProductID = ID.proYearly
        let date = Fixture.date("2027-02-01T00:00:00Z")
        let info = Self.terms.renewalInfo(record, storefront: storefront, environment: .sandbox, at: date)
        let yearly = try #require(Repo.catalog.product(ID.proYearly)?.price(in: "USA", on: .upFront))
        #expect(info.autoRenewProductID == ID.proYearly)
        #expect(info.renewalPriceMilliunits == LocalAppStore.milliunits(yearly))
        #expect(info.currency == "USD")
        #expect(info.appTransactionID == "742")
        #expect(info.environment == "Sandbox")
        #expect(info.signedDate == date)
        #expect(info.offerType == nil)
    }

    @Test("a product without billing plans renews on none")
    func renewalPlan() throws {
        #expect(Self.terms.renewalPlan(Fixture.record(product: ID.proMonthly), to: Repo.catalog.product(ID.proMonthly)) == nil)
        #expect(Self.terms.renewalPlan(Fixture.record(product: ID.proMonthly), to: nil) == nil)
    }

    @Test("an introductory offer is the product's own; an offer code is found by its reference name")
    func offerDefinitions() throws {
        let product = try #require(Repo.catalog.products.first { $0.subscription?.introductoryOffer(on: .upFront) != nil })
        #expect(Self.terms.offerDefinition(type: .introductory, id: nil, productID: product.id, plan: .upFront)
            == product.subscription?.introductoryOffer(on: .upFront))
        let code = try #require(Repo.catalog.offerCodes.first)
        #expect(Self.terms.offerDefinition(type: .code, id: code.referenceName, productID: code.productID, plan: .upFront) == code.offer)
        #expect(Self.terms.offerDefinition(type: .promotional, id: "no such offer", productID: product.id, plan: .upFront) == nil)
    }
}
