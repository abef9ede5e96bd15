import Foundation

extension Catalog {
    /// Where the customer shops: the storefront asked for, else the settings', else the catalog's first;
    /// the locale asked for, else the settings' (unless another storefront was asked for), else the
    /// storefront's own. Nil when the catalog does not sell in that storefront.
    public func place(storefront requested: String?, locale requestedLocale: String?,
                      settings: TestSettings) -> (storefront: Storefront, locale: String)? {
        let code = requested ?? settings.storefront ?? storefronts.first?.code ?? "USA"
        guard let storefront = storefront(code) else { return nil }
        return (storefront, requestedLocale ?? (requested == nil ? settings.locale : nil) ?? storefront.locale)
    }
}
