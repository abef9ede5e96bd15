/// An App Store storefront: a country or region, its currency and its usual locale.
public struct Storefront: Hashable, Sendable {
    /// ISO 3166-1 alpha-3, as StoreKit's `Storefront.countryCode` (`USA`).
    public var code: String
    /// ISO 4217 currency code.
    public var currency: String
    /// The locale prices are shown in by default (`ja_JP`).
    public var locale: String
    /// Apple's numeric storefront identifier (`143441`).
    public var id: String

    public init(code: String, currency: String, locale: String, id: String) {
        self.code = code
        self.currency = currency
        self.locale = locale
        self.id = id
    }

    public static func known(_ code: String) -> Storefront? { knownByCode[code.uppercased()] }

    public static let usa = known("USA")!

    private static let knownByCode = Dictionary(uniqueKeysWithValues: all.map { ($0.code, $0) })

    /// App Store storefronts this tool knows by code. A `.storekit` file sells in every one of these,
    /// at its one `displayPrice`, as Xcode does.
    public static let all: [Storefront] = [
        ("USA", "USD", "en_US", "143441"), ("FRA", "EUR", "fr_FR", "143442"), ("DEU", "EUR", "de_DE", "143443"),
        ("GBR", "GBP", "en_GB", "143444"), ("AUT", "EUR", "de_AT", "143445"), ("BEL", "EUR", "nl_BE", "143446"),
        ("FIN", "EUR", "fi_FI", "143447"), ("GRC", "EUR", "el_GR", "143448"), ("IRL", "EUR", "en_IE", "143449"),
        ("ITA", "EUR", "it_IT", "143450"), ("LUX", "EUR", "fr_LU", "143451"), ("NLD", "EUR", "nl_NL", "143452"),
        ("PRT", "EUR", "pt_PT", "143453"), ("ESP", "EUR", "es_ES", "143454"), ("CAN", "CAD", "en_CA", "143455"),
        ("SWE", "SEK", "sv_SE", "143456"), ("NOR", "NOK", "nb_NO", "143457"), ("DNK", "DKK", "da_DK", "143458"),
        ("CHE", "CHF", "de_CH", "143459"), ("AUS", "AUD", "en_AU", "143460"), ("NZL", "NZD", "en_NZ", "143461"),
        ("JPN", "JPY", "ja_JP", "143462"), ("HKG", "HKD", "zh_HK", "143463"), ("SGP", "SGD", "en_SG", "143464"),
        ("CHN", "CNY", "zh_CN", "143465"), ("KOR", "KRW", "ko_KR", "143466"), ("IND", "INR", "en_IN", "143467"),
        ("MEX", "MXN", "es_MX", "143468"), ("RUS", "RUB", "ru_RU", "143469"), ("TWN", "TWD", "zh_TW", "143470"),
        ("VNM", "VND", "vi_VN", "143471"), ("ZAF", "ZAR", "en_ZA", "143472"), ("MYS", "MYR", "ms_MY", "143473"),
        ("PHL", "PHP", "en_PH", "143474"), ("THA", "THB", "th_TH", "143475"), ("IDN", "IDR", "id_ID", "143476"),
        ("PAK", "PKR", "en_PK", "143477"), ("POL", "PLN", "pl_PL", "143478"), ("SAU", "SAR", "ar_SA", "143479"),
        ("TUR", "TRY", "tr_TR", "143480"), ("ARE", "AED", "ar_AE", "143481"), ("HUN", "HUF", "hu_HU", "143482"),
        ("CHL", "CLP", "es_CL", "143483"), ("CZE", "CZK", "cs_CZ", "143489"), ("ISR", "ILS", "he_IL", "143491"),
        ("UKR", "UAH", "uk_UA", "143492"), ("EGY", "EGP", "ar_EG", "143516"), ("BRA", "BRL", "pt_BR", "143503"),
        ("COL", "COP", "es_CO", "143501"), ("PER", "PEN", "es_PE", "143507"), ("ROU", "RON", "ro_RO", "143487"),
        ("NGA", "NGN", "en_NG", "143561"), ("KAZ", "KZT", "kk_KZ", "143517"), ("QAT", "QAR", "ar_QA", "143498"),
        ("ARG", "USD", "es_AR", "143505"), ("BGR", "EUR", "bg_BG", "143526"), ("HRV", "EUR", "hr_HR", "143494"),
    ].map { Storefront(code: $0.0, currency: $0.1, locale: $0.2, id: $0.3) }
}
