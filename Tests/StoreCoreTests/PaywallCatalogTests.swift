import Foundation
import Testing
@testable import StoreCore
import StorefrontTestSupport

/// What a paywall reads from the catalog: a group's marketing content per locale and the app's policy links.
@Suite("Paywall content in catalogs")
struct PaywallCatalogTests {
    @Test("the bundled catalog's group has marketing content in its languages, and the app its policy links")
    func bundled() throws {
        let catalog = try CatalogLoader.load(path: Repo.catalogPath)
        let group = try #require(catalog.group("lumenquest.membership"))
        #expect(group.marketing(for: "en_US")?.headline == "Light every path")
        #expect(group.marketing(for: "ja_JP")?.features.count == 3)
        #expect(group.marketing(for: "de_DE")?.headline == "Erhelle jeden Weg")
        #expect(group.marketing(for: "fr_FR")?.headline == "Light every path", "a locale without its own falls back to English")
        #expect(catalog.app.termsOfServiceURL == "https://lumenquest.example/terms")
        #expect(catalog.app.privacyPolicyURL == "https://lumenquest.example/privacy")
    }

    @Test("a policy link that is not a web address names its field")
    func badURL() throws {
        let error = try #require(catalogError { $0.set("app.privacyPolicyURL", .string("lumenquest.example/privacy")) })
        #expect(error.location == .field("app.privacyPolicyURL"))
        #expect(error.message.contains("not an http or https URL"))
    }

    @Test("marketing content needs a headline, and names the field that lacks one")
    func marketingNeedsHeadline() throws {
        let error = try #require(catalogError { $0.set("subscriptionGroups.0.marketing.en_US.headline", nil) })
        #expect(error.location == .field("subscriptionGroups[0].marketing.en_US.headline"))
    }

    @Test("a .storekit group's localized descriptions are its marketing text, headed by its display name; appPolicies' URLs are the links")
    func storekitImport() throws {
        let text = """
        {"identifier": "T", "appPolicies": {"eula": "https://example.com/eula",
           "policies": [{"locale": "fr", "policyText": "", "policyURL": "https://example.com/fr/privacy"},
                        {"locale": "en_US", "policyText": "", "policyURL": "https://example.com/privacy"}]},
         "subscriptionGroups": [{"id": "G", "name": "Pro", "localizations": [
            {"locale": "en_US", "displayName": "Pro Access", "description": "Everything, everywhere."},
            {"locale": "ja", "displayName": "", "description": "すべてを。"},
            {"locale": "fr", "displayName": "Accès Pro", "description": ""}],
          "subscriptions": [{"productID": "p", "type": "RecurringSubscription", "displayPrice": "1.99", "groupNumber": 1,
                             "recurringSubscriptionPeriod": "P1M", "localizations": []}]}]}
        """
        let catalog = try CatalogLoader.load(data: Data(text.utf8), file: "T.storekit")
        let group = try #require(catalog.group("G"))
        #expect(group.marketing["en_US"] == GroupMarketing(headline: "Pro Access", text: "Everything, everywhere."))
        #expect(group.marketing["ja"] == GroupMarketing(headline: "Pro", text: "すべてを。"), "no display name: the reference name heads it")
        #expect(group.marketing["fr"] == nil, "no description, no marketing text")
        #expect(catalog.app.termsOfServiceURL == "https://example.com/eula")
        #expect(catalog.app.privacyPolicyURL == "https://example.com/privacy", "English's first")
    }

    @Test("Xcode's empty appPolicies give no links")
    func emptyPolicies() throws {
        let catalog = try CatalogLoader.load(path: Repo.sharedFixtures.appendingPathComponent("storekit/xmliszt+joodle__Store.storekit").path)
        #expect(catalog.app.termsOfServiceURL == nil)
        #expect(catalog.app.privacyPolicyURL == nil)
    }
}
