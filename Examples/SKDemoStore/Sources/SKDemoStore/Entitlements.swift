import Foundation
import Observation
import StoreKit

/// The other way tutorials teach it: an `@Observable` model of what the customer may use, listening
/// from launch and recomputed from current entitlements; consumables are not its business.
@MainActor @Observable
public final class Entitlements {
    public private(set) var ownedProductIDs: Set<String> = []
    public private(set) var lastError: (any Error)?
    @ObservationIgnored private var updates: Task<Void, Never>?

    public init() {
        updates = Task { [weak self] in
            for await result in Transaction.updates {
                guard case .verified(let transaction) = result else { continue }
                await self?.refresh()
                await transaction.finish()
            }
        }
    }

    deinit { updates?.cancel() }

    public func buy(_ product: Product) async {
        do {
            if case .success(.verified(let transaction)) = try await product.purchase() {
                await refresh()
                await transaction.finish()
            }
        } catch {
            lastError = error
        }
    }

    public func refresh() async {
        var owned: Set<String> = []
        for await case .verified(let transaction) in Transaction.currentEntitlements where transaction.revocationDate == nil {
            owned.insert(transaction.productID)
        }
        ownedProductIDs = owned
    }
}
