/// StoreKit's four product types.
public enum ProductType: String, CaseIterable, Sendable, Codable {
    case consumable, nonConsumable, autoRenewable, nonRenewing

    /// The most one purchase buys: StoreKit sells up to 10 of a consumable or a non-renewing
    /// subscription at once (`PurchaseOption.quantity`), and one of anything else.
    public var maximumQuantity: Int { self == .consumable || self == .nonRenewing ? 10 : 1 }

    /// The `type` string Apple puts in signed transactions.
    public var signedName: String {
        switch self {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonRenewing: "Non-Renewing Subscription"
        }
    }

    public init?(signedName: String) {
        guard let type = Self.allCases.first(where: { $0.signedName == signedName }) else { return nil }
        self = type
    }

    public var title: String {
        switch self {
        case .consumable: "Consumables"
        case .nonConsumable: "Non-consumables"
        case .autoRenewable: "Subscriptions"
        case .nonRenewing: "Non-renewing subscriptions"
        }
    }
}
