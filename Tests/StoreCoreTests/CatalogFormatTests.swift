import Foundation
import Testing
@testable import StoreCore
import StorefrontTestSupport

@Suite("Catalog format")
struct CatalogFormatTests {
    @Test("the bundled catalog loads with every product type, 12 storefronts and 4 localizations")
    func bundledCatalog() throws {
        let catalog = try CatalogLoader.load(path: Repo.catalogPath)
        let counts = Dictionary(grouping: catalog.products, by: \.type).mapValues(\.count)
        #expect(counts[.consumable] == 2)
        #expect(counts[.nonConsumable] == 2)
        #expect(counts[.nonRenewing] == 1)
        #expect(counts[.autoRenewable] == 4)
        #expect(catalog.storefronts.count >= 10)
        for code in ["USA", "GBR", "DEU", "FRA", "JPN", "CHN", "IND", "CHE", "BRA", "KOR"] { #expect(catalog.storefront(code) != nil) }
        #expect(Set(catalog.locales) == ["en_US", "zh_Hans", "ja", "de"])
        let types = Set(catalog.offerCodes.compactMap { catalog.product($0.productID)?.type })
        #expect(types == Set(ProductType.allCases))
        let levels = Set(catalog.subscriptions(inGroup: "lumenquest.membership").map { $0.subscription!.level })
        #expect(levels.count >= 2)
    }

    @Test("writing a catalog and reading it back gives the same catalog")
    func roundTrip() throws {
        let catalog = try CatalogLoader.load(path: Repo.catalogPath)
        let text = CatalogFormat.encode(catalog).serialized()
        let again = try CatalogLoader.load(data: Data(text.utf8), file: "round-trip.json")
        #expect(again == catalog)
        #expect(CatalogFormat.encode(again).serialized() == text)
    }

    @Test("a JSON syntax error names the file, line and column")
    func syntaxError() {
        let text = "{\n  \"app\": {\n    \"name\": \"X\",,\n  }\n}"
        #expect(throws: CatalogError(file: "broken.json", location: .position(line: 3, column: 17), message: "expected a quoted key")) {
            try CatalogLoader.load(data: Data(text.utf8), file: "broken.json")
        }
    }

    @Test("a missing file says so")
    func missingFile() {
        #expect(throws: CatalogError(file: "/nonexistent/catalog.json", location: .file, message: "no such file")) {
            try CatalogLoader.load(path: "/nonexistent/catalog.json")
        }
    }

    @Test("validation errors name the path of the offending field", arguments: [
        ("subscriptionGroups.0.subscriptions.2.period", JSONValue.string("P5X"), "subscriptionGroups[0].subscriptions[2].period", "not a valid period"),
        ("products.0.type", "gadget", "products[0].type", "unknown type \"gadget\""),
        ("products.1.prices.USA", "4,99", "products[1].prices.USA", "not a decimal price"),
        ("products.1.prices.USA", .number("4.99"), "products[1].prices.USA", "decimal strings"),
        ("products.1.prices.XYZ", "1.00", "products[1].prices.XYZ", "unknown storefront code \"XYZ\""),
        ("storefronts.+", "QQQ", "storefronts[12]", "unknown storefront code \"QQQ\""),
        ("products.0.localizations.xx_YY", ["displayName": "X"], "products[0].localizations.xx_YY", "unknown locale"),
        ("offerCodes.0.product", "com.example.nothing", "offerCodes[0].product", "unknown product"),
        ("subscriptionGroups.0.subscriptions.0.level", 0, "subscriptionGroups[0].subscriptions[0].level", "out of range"),
        ("subscriptionGroups.0.subscriptions.3.introductoryOffer.paymentMode", "halfOff", "subscriptionGroups[0].subscriptions[3].introductoryOffer.paymentMode", "unknown payment mode"),
        ("settings.timeRate", "warp", "settings.timeRate", "unknown time rate"),
        ("settings.failures", ["purchase": "oops"], "settings.failures.purchase", "unknown error"),
        ("settings.notificationURL", "ftp://example.com/n", "settings.notificationURL", "is not an http or https URL"),
        ("settings.notificationURL", "localhost:8080", "settings.notificationURL", "is not an http or https URL"),
        ("settings.appAccountToken", "user-42", "settings.appAccountToken", "is not a UUID"),
        ("products.0.prise", "1", "products[0].prise", "unknown field"),
        ("app.name", nil, "app.name", "missing required field"),
    ] as [(String, JSONValue?, String, String)])
    func validationError(edit: String, value: JSONValue?, path: String, message: String) {
        let error = catalogError { $0.set(edit, value) }
        #expect(error?.location == .field(path), "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.file == "catalog.json")
    }

    @Test("settings.notificationURL, an http or https URL, is read and written back")
    func notificationURLRoundTrips() throws {
        var settings = TestSettings()
        settings.notificationURL = "https://backend.example/appstore"
        let again = try CatalogFormat.decodeSettings(CatalogFormat.encode(settings), storefronts: [], file: "settings")
        #expect(again.notificationURL == "https://backend.example/appstore")
    }

    @Test("settings.appAccountToken, the storefront's own app's token, is read and written back")
    func appAccountTokenRoundTrips() throws {
        var settings = TestSettings()
        settings.appAccountToken = UUID(uuidString: "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        let again = try CatalogFormat.decodeSettings(CatalogFormat.encode(settings), storefronts: [], file: "settings")
        #expect(again.appAccountToken == settings.appAccountToken)
    }

    @Test("duplicate product IDs are rejected")
    func duplicateIDs() {
        let error = catalogError { $0.set("products.1.id", "com.lumenquest.coins.100") }
        #expect(error?.message == "duplicate product ID \"com.lumenquest.coins.100\" (product IDs must be unique across products and subscriptions)")
    }

    @Test("an offer naming an unknown storefront or a paid offer without prices is rejected")
    func offerPrices() {
        let error = catalogError { $0.set("subscriptionGroups.0.subscriptions.1.promotionalOffers.0.prices", nil) }
        #expect(error?.location == .field("subscriptionGroups[0].subscriptions[1].promotionalOffers[0]"))
    }

    @Test("deeply nested and invalid UTF-8 input is an error, never a crash")
    func hostileInput() {
        let deep = String(repeating: "[", count: 10_000)
        #expect(throws: CatalogError.self) { try CatalogLoader.load(data: Data(deep.utf8), file: "deep.json") }
        #expect(throws: CatalogError.self) { try CatalogLoader.load(data: Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]), file: "utf8.json") }
        #expect(throws: CatalogError.self) { try CatalogLoader.load(data: Data(), file: "empty.json") }
    }

    @Test("JSON strings read the same with or without escapes, and only valid UTF-8 reads at all")
    func jsonStrings() throws {
        func string(_ bytes: [UInt8]) throws -> String? { try JSONParser.parse(Data([0x5B] + bytes + [0x5D])).arrayValue?.first?.stringValue }
        #expect(try string(Array(#""plain""#.utf8)) == "plain")
        #expect(try string(Array("\"商品 é\"".utf8)) == "商品 é")
        #expect(try string(Array(#""ab\u00e9c\n""#.utf8)) == "abéc\n")
        #expect(try string(Array("\"é\\\"x\"".utf8)) == "é\"x")
        for bad: [UInt8] in [[0x22, 0x61, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0x5C, 0x6E, 0xFF, 0x22], [0x22, 0x61, 0x0A, 0x22], [0x22, 0x61]] {
            #expect(throws: JSONSyntaxError.self, "\(bad)") { try string(bad) }
        }
    }

    @Test("Compact JSON escapes only what it must, keeps key order, and reads back as it was")
    func compactJSON() throws {
        let value: JSONValue = ["b": "plain", "a": ["q\"uote", "back\\slash", "new\nline", "商品"], "n": .number("1.5"), "t": true, "z": nil]
        let text = value.compact
        #expect(text == #"{"b":"plain","a":["q\"uote","back\\slash","new\nline","商品"],"n":1.5,"t":true,"z":null}"#)
        #expect(try JSONParser.parse(text) == value)
    }

    @Test("A string is copied whole exactly when none of its bytes needs escaping, wherever in a word the byte lies")
    func escapeCheckByWords() {
        for byte in UInt8.min...UInt8.max {
            for position in 0..<19 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 19)
                bytes[position] = byte
                let expected = byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
                #expect(bytes.withUnsafeBufferPointer(JSONValue.noByteNeedsEscape) == expected, "byte \(byte) at \(position)")
            }
        }
        #expect([UInt8]().withUnsafeBufferPointer(JSONValue.noByteNeedsEscape))
    }
}

@Suite("Products and prices")
struct ProductTests {
    let catalog = try! CatalogLoader.load(path: Repo.catalogPath)

    @Test("displayPrice uses the storefront's currency in the locale", arguments: [
        ("USA", "en_US", "com.lumenquest.gems.500", "$4.99"),
        ("JPN", "ja_JP", "com.lumenquest.gems.500", "¥800"),
        ("DEU", "de_DE", "com.lumenquest.gems.500", "4,99\u{a0}€"),
        ("FRA", "fr_FR", "com.lumenquest.gems.500", "4,99\u{a0}€"),
        ("GBR", "en_GB", "com.lumenquest.gems.500", "£4.99"),
        ("CHN", "zh_CN", "com.lumenquest.gems.500", "¥30.00"),
        ("IND", "hi_IN", "com.lumenquest.pro.yearly", "₹8,999.00"),
        ("CHE", "de_CH", "com.lumenquest.gems.500", "CHF\u{a0}5.00"),
        ("BRA", "pt_BR", "com.lumenquest.gems.500", "R$\u{a0}27,90"),
        ("KOR", "ko_KR", "com.lumenquest.gems.500", "₩7,500"),
        ("JPN", "en_US", "com.lumenquest.gems.500", "¥800"),
    ])
    func displayPrice(storefront: String, locale: String, id: String, expected: String) {
        let product = catalog.products(for: [id], storefront: storefront, locale: locale).first
        #expect(product?.displayPrice == expected)
    }

    @Test("Indian rupees use Indian digit grouping")
    func indianGrouping() {
        #expect(PriceFormatter.displayPrice(125_000, currency: "INR", locale: "en_IN") == "₹1,25,000.00")
    }

    @Test("products not sold in the storefront are left out, as Product.products(for:) does")
    func notSoldLeftOut() {
        let china = catalog.products(storefront: "CHN", locale: "zh_CN").map(\.id)
        #expect(!china.contains("com.lumenquest.removeads"))
        #expect(catalog.products(for: ["com.lumenquest.removeads", "nope"], storefront: "USA", locale: "en_US").map(\.id) == ["com.lumenquest.removeads"])
    }

    @Test("display names fall back zh_CN → zh_Hans → the first locale")
    func localeFallback() {
        let coins = catalog.product("com.lumenquest.coins.100")!
        #expect(coins.localization(for: "zh_CN").displayName == "100 金币")
        #expect(coins.localization(for: "ja_JP").displayName == "コイン100枚")
        #expect(coins.localization(for: "de_CH").displayName == "100 Münzen")
        #expect(coins.localization(for: "fr_FR").displayName == "100 Coins")
        #expect(LocaleMatch.best("zh_TW", among: ["zh_Hans", "zh_Hant"]) == "zh_Hant")
        #expect(LocaleMatch.best("en_GB", among: ["en_US", "en_GB"]) == "en_GB")
    }

    @Test("intro offer text reads like the App Store's")
    func offerText() throws {
        let plus = try #require(catalog.products(for: ["com.lumenquest.plus.monthly"], storefront: "JPN", locale: "ja_JP").first)
        #expect(plus.offerText(plus.subscription!.introductoryOffer!) == "1週間 free, then ¥800/か月")
        let pro = try #require(catalog.products(for: ["com.lumenquest.pro.monthly"], storefront: "USA", locale: "en_US").first)
        #expect(pro.offerText(pro.subscription!.introductoryOffer!) == "$4.99/month for 3 months, then $14.99/month")
    }

    /// Seen: "99,99 €/year" in German; the periods are the platform's words for the customer's locale.
    @Test("subscription periods are named in the product's locale")
    func periodsInTheCustomersLanguage() throws {
        let yearly = try #require(catalog.products(for: ["com.lumenquest.pro.yearly"], storefront: "DEU", locale: "de_DE").first)
        #expect(yearly.priceWithPeriod.hasSuffix("/Jahr"), "\(yearly.priceWithPeriod)")
        let monthly = try #require(catalog.products(for: ["com.lumenquest.pro.monthly"], storefront: "FRA", locale: "fr_FR").first)
        let french = monthly.offerText(monthly.subscription!.introductoryOffer!).replacingOccurrences(of: "\u{A0}", with: " ")
            .replacingOccurrences(of: "\u{202F}", with: " ")  // French keeps a number and its unit together
        #expect(french.contains("/mois for 3 mois, then "), "\(french.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(PeriodNames.duration(Period(2, .week), locale: "ko_KR") == "2주")
        #expect(PeriodNames.per(Period(3, .month), locale: "en_US") == "3 months", "more than one: the duration")
        #expect(PeriodNames.per(Period(1, .day), locale: "pt_BR") == "dia")
    }

    @Test("periods parse and advance by calendar months in UTC")
    func periods() {
        #expect(Period(iso: "P1M") == Period(1, .month))
        #expect(Period(iso: "P0M") == nil)
        #expect(Period(iso: "1M") == nil)
        let jan31 = Date(timeIntervalSince1970: 1_706_659_200) // 2024-01-31
        #expect(Period(1, .month).advance(jan31).formatted(.iso8601.year().month().day()) == "2024-02-29")
    }
}

@Suite("Catalog schema")
struct CatalogSchemaTests {
    @Test("the JSON Schema ships with the module and names every top-level field the reader accepts")
    func schema() throws {
        let schema = try #require(CatalogFormat.schema)
        let keys = Set(schema["properties"]?.objectValue?.map(\.key) ?? [])
        #expect(keys == ["$schema", "format", "app", "storefronts", "products", "subscriptionGroups", "offerCodes", "settings"])
    }
}

@Suite("Signed payload decoding")
struct PayloadDecodingTests {
    @Test("huge or fractional numbers in a payload decode or are rejected, never trap")
    func hugeNumbers() throws {
        let json = try JSONParser.parse(#"{"transactionId":1e300,"originalTransactionId":"1","productId":"p","type":"Consumable","purchaseDate":1e308,"signedDate":1}"#)
        #expect(TransactionPayload(json: json) == nil)
        let fractional = try JSONParser.parse(#"{"transactionId":7.9,"originalTransactionId":"1","productId":"p","type":"Consumable","purchaseDate":1,"signedDate":1}"#)
        #expect(TransactionPayload(json: fractional)?.transactionID == 7)
    }

    @Test("a date beyond what a double holds (1e400 ms) is no date: the payload lacks it, nothing formats infinity")
    func infiniteDates() throws {
        let json = try JSONParser.parse(#"{"transactionId":"7","originalTransactionId":"1","productId":"p","type":"Consumable","purchaseDate":1e400,"signedDate":1}"#)
        #expect(json["purchaseDate"]?.date == nil)
        #expect(TransactionPayload(json: json) == nil, "purchaseDate is required")
        let expiring = try JSONParser.parse(#"{"transactionId":"7","originalTransactionId":"1","productId":"p","type":"Consumable","purchaseDate":1,"signedDate":1,"expiresDate":-1e400}"#)
        #expect(TransactionPayload(json: expiring)?.expirationDate == nil)
    }
}

@Suite("Calendar arithmetic")
struct CalendarArithmeticTests {
    /// What Period did with Foundation's calendar alone: the oracle for its day counting.
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    static func oracle(_ period: Period, _ date: Date, anchorDay: Int) -> Date {
        let component: Calendar.Component = switch period.unit { case .day: .day; case .week: .weekOfYear; case .month: .month; case .year: .year }
        let end = calendar.date(byAdding: component, value: period.value, to: date)!
        guard period.unit == .month || period.unit == .year else { return end }
        let day = calendar.component(.day, from: end), last = calendar.range(of: .day, in: .month, for: end)!.count
        guard day < anchorDay, day < last else { return end }
        return calendar.date(byAdding: .day, value: min(anchorDay, last) - day, to: end)!
    }

    @Test("Periods end where Foundation's UTC Gregorian calendar says, to the fraction of a second, from 1583 to 9999")
    func periodsMatchFoundationsCalendar() {
        var random = SeededRandom(seed: 2026)
        let units: [Period.Unit] = [.day, .week, .month, .year]
        for _ in 0..<20_000 {
            // Whole seconds, milliseconds and arbitrary fractions, across the supported years.
            let seconds = Double(Int64.random(in: -12_212_553_600..<253_000_000_000, using: &random))
                + [0, Double(Int.random(in: 0..<1000, using: &random)) / 1000, Double.random(in: 0..<1, using: &random)].randomElement(using: &random)!
            let date = Date(timeIntervalSince1970: seconds)
            let period = Period(Int.random(in: 1...13, using: &random), units.randomElement(using: &random)!)
            let anchor = Int.random(in: 1...31, using: &random)
            #expect(period.advance(date, anchorDay: anchor) == Self.oracle(period, date, anchorDay: anchor), "\(period) from \(date), anchor \(anchor)")
            #expect(Period.day(of: date) == Self.calendar.component(.day, from: date), "\(date)")
        }
    }

    @Test("A monthly renewal keeps its anniversary day through short months and leap years")
    func anniversaryDay() throws {
        let formatter = ISO8601DateFormatter()
        var date = try #require(formatter.date(from: "2027-12-31T10:30:00Z"))
        var seen: [String] = []
        for _ in 0..<3 {
            date = Period(1, .month).advance(date, anchorDay: 31)
            seen.append(formatter.string(from: date))
        }
        #expect(seen == ["2028-01-31T10:30:00Z", "2028-02-29T10:30:00Z", "2028-03-31T10:30:00Z"])
        // Century years leap only every fourth century.
        for (start, end) in [("1900-01-31", "1900-02-28"), ("2000-01-31", "2000-02-29"), ("2100-01-31", "2100-02-28"), ("1583-01-31", "1583-02-28")] {
            let date = try #require(formatter.date(from: start + "T00:00:00Z"))
            #expect(formatter.string(from: Period(1, .month).advance(date)) == end + "T00:00:00Z")
        }
    }
}
