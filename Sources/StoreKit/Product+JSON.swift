import Foundation
import StoreCore

extension Product: CustomDebugStringConvertible {
    /// The product as the App Store's catalog describes it, in the shape StoreKit hands out (Apple leaves
    /// the schema undocumented; this is the one StoreKit Testing in Xcode gives): its attributes, the
    /// storefront's offer with the price as text and as shown, and a subscription's period, group and
    /// introductory offer. The catalog has no App Store IDs, so `id` is the product ID.
    public var jsonRepresentation: Data { Data(json.compact.utf8) }

    public var debugDescription: String { json.compact }

    var json: JSONValue {
        var attributes: [(key: String, value: JSONValue)] = [
            ("description", .object([("standard", .string(item.description))])),
            ("icuLocale", .string("\(item.locale)@currency=\(item.currency)")),
            ("isFamilyShareable", .number(item.isFamilyShareable ? "1" : "0")),
            ("kind", .string(type.rawValue)),
            ("name", .string(item.displayName)),
            ("offerName", .string(id)),
            ("offers", .array([offer])),
        ]
        if let terms = item.subscription {
            attributes += [("subscriptionFamilyId", .string(terms.groupID)), ("subscriptionFamilyName", .string(item.groupName ?? "")),
                           ("subscriptionFamilyRank", .number(String(terms.level)))]
        }
        return .object([("attributes", .object(attributes)), ("href", .string("/v1/catalog/\(item.storefront.lowercased())/in-apps/\(id)")),
                        ("id", .string(id)), ("type", .string("in-apps"))])
    }

    private var offer: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("currencyCode", .string(item.currency))]
        if let terms = item.subscription {
            members.append(("discounts", .array(terms.introductoryOffer.map { [discount($0)] } ?? [])))
        }
        members += [("price", .string("\(item.price)")), ("priceFormatted", .string(item.displayPrice))]
        if let terms = item.subscription { members.append(("recurringSubscriptionPeriod", .string(terms.period.iso))) }
        return .object(members)
    }

    private func discount(_ offer: StoreCore.SubscriptionOffer) -> JSONValue {
        let mode = switch offer.paymentMode {
        case .freeTrial: "FreeTrial"
        case .payAsYouGo: "PayAsYouGo"
        case .payUpFront, .oneTime: "PayUpFront"
        }
        let price = offer.price(in: item.storefront)
        return .object([("modeType", .string(mode)), ("numOfPeriods", .number(String(offer.periodCount))), ("price", .string("\(price)")),
                        ("priceFormatted", .string(item.format(price))), ("recurringSubscriptionPeriod", .string(offer.period.iso)),
                        ("type", .string("IntroOffer"))])
    }
}
