import Foundation
import StoreCore
import StoreEngine

/// StoreKit's `PurchaseIntent`: a purchase the customer began outside the app (a promoted In-App Purchase
/// tapped on the App Store, a win-back offer redeemed there) for the app to complete, usually by buying
/// `product` with `offer`. Here the tester sends one: the QA panel's "Promoted on the App Store…", a
/// scenario's `promote` step, or `LocalAppStore.sendPurchaseIntent`; the first app on the store to look takes it.
public struct PurchaseIntent: Identifiable, Hashable, Sendable {
    public let product: Product
    /// The promotional or win-back offer the customer chose with it; nil for none.
    public let offer: Product.SubscriptionOffer?
    public var id: Product.ID { product.id }

    /// Each purchase intent once: those sent before the app listened (the system holds them for an app it
    /// launches), then each new one (the store is looked at four times a second). Lasts the app's life.
    public static var intents: PurchaseIntents { PurchaseIntents() }

    public struct PurchaseIntents: AsyncSequence, Sendable {
        public typealias Element = PurchaseIntent

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }

        public struct AsyncIterator: AsyncIteratorProtocol {
            var ready: [PurchaseIntent] = []

            public mutating func next() async -> PurchaseIntent? {
                while true {
                    if !ready.isEmpty { return ready.removeFirst() }
                    guard !Task.isCancelled, let connection = await StoreKitRuntime.listening() else { return nil }
                    let taken = await connection.source.takePurchaseIntents()
                    if !taken.isEmpty {
                        // Products that cannot be read now (a failure, a store out of reach): back to the store, to try again.
                        if let intents = await connection.purchaseIntents(taken) { ready = intents } else { await connection.source.returnPurchaseIntents(taken) }
                    }
                    if ready.isEmpty, (try? await Task.sleep(for: .milliseconds(250))) == nil { return nil }
                }
            }
        }
    }
}

extension StoreConnection {
    /// Intents as StoreKit hands them out: the product in the current storefront, and its offer; nil when the
    /// products cannot be read now. One whose product the storefront no longer sells (it changed since the
    /// customer tapped) is dropped, as the App Store there would not show it.
    func purchaseIntents(_ requests: [PurchaseIntentRequest]) async -> [PurchaseIntent]? {
        guard let products = try? await source.products(for: requests.map(\.productID)).map(Product.init) else { return nil }
        return requests.compactMap { request in
            guard let product = products.first(where: { $0.id == request.productID }) else { return nil }
            let offers = (product.subscription?.promotionalOffers ?? []) + (product.subscription?.winBackOffers ?? [])
            return PurchaseIntent(product: product, offer: request.offerID.flatMap { id in offers.first { $0.id == id } })
        }
    }
}

extension Product {
    /// StoreKit's `Product.PromotionInfo`: the app's own order and visibility for its promoted In-App
    /// Purchases on the App Store, per device. Here the store keeps them for the app (in memory, for the
    /// store's life, as a device keeps them) and reads them back; no App Store page here shows the order.
    public struct PromotionInfo: Identifiable, Hashable, Sendable {
        public let productID: Product.ID
        public var visibility: Visibility
        public var id: Product.ID { productID }

        /// `.appStoreConnectDefault`, `.visible`, `.hidden`.
        public typealias Visibility = PromotionOverride.Visibility

        /// The promotions the app ordered, with their visibility; empty while it set none.
        public static var currentOrder: [PromotionInfo] {
            get async throws {
                try await connection().call { try await $0.promotionOrder() }.map { PromotionInfo(productID: $0.productID, visibility: $0.visibility) }
            }
        }

        /// Orders the promoted products by these identifiers (each keeps the visibility it had).
        public static func updateProductOrder(byID productIDs: some Collection<Product.ID>) async throws {
            let visibilities = Dictionary(try await currentOrder.map { ($0.productID, $0.visibility) }) { a, _ in a }
            try await updateAll(productIDs.map { PromotionInfo(productID: $0, visibility: visibilities[$0] ?? .appStoreConnectDefault) })
        }

        /// Sets the whole order and every visibility; an empty collection cancels the app's changes.
        public static func updateAll(_ promotions: some Collection<PromotionInfo>) async throws {
            let order = promotions.map { PromotionOverride(productID: $0.productID, visibility: $0.visibility) }
            try await connection().call { try await $0.setPromotionOrder(order) }
        }

        public static func updateProductVisibility(_ visibility: Visibility, for productID: Product.ID) async throws {
            try await connection().call { try await $0.setPromotionVisibility(visibility, for: productID) }
        }

        /// Saves this promotion's `visibility`.
        public func update() async throws {
            try await Self.updateProductVisibility(visibility, for: productID)
        }

        private static func connection() throws -> StoreConnection {
            guard let connection = StoreKitRuntime.current else { throw StoreKitError.unknown }
            return connection
        }
    }
}
