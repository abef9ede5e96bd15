import Foundation
import StoreKit

public typealias Transaction = StoreKit.Transaction
public typealias RenewalInfo = StoreKit.Product.SubscriptionInfo.RenewalInfo
public typealias RenewalState = StoreKit.Product.SubscriptionInfo.RenewalState

public enum StoreError: Error {
    case failedVerification
}

/// A store class as Apple's SKDemo sample writes one: products by kind, what the customer owns,
/// a listener started at launch, verify → deliver → finish, and entitlements recomputed from
/// `Transaction.currentEntitlements`. Nothing in it knows it runs on Linux.
@MainActor
public final class Store: ObservableObject {
    @Published public private(set) var cars: [Product] = []
    @Published public private(set) var fuel: [Product] = []
    @Published public private(set) var subscriptions: [Product] = []
    @Published public private(set) var nonRenewables: [Product] = []

    @Published public private(set) var purchasedCars: [Product] = []
    @Published public private(set) var purchasedNonRenewableSubscriptions: [Product] = []
    @Published public private(set) var purchasedSubscriptions: [Product] = []
    @Published public private(set) var subscriptionGroupStatus: RenewalState?
    /// Fuel is consumable: the app keeps its own tank, filled once per transaction.
    @Published public private(set) var fuelTank: [String: Int] = [:]
    #if !os(macOS)
    /// App Store messages held back until the app shows them (`listenForMessages()`).
    @Published public internal(set) var pendingMessages: [Message] = []
    #endif

    public static let productIDs = [
        "consumable.fuel.octane87", "consumable.fuel.octane89", "consumable.fuel.octane91",
        "nonconsumable.car", "nonconsumable.utilityvehicle", "nonconsumable.racecar",
        "subscription.standard", "subscription.premium", "subscription.pro", "nonRenewing.standard",
    ]

    private var delivered: Set<UInt64> = []
    private var updateListenerTask: Task<Void, Never>?

    public init() {
        updateListenerTask = listenForTransactions()
    }

    deinit { updateListenerTask?.cancel() }

    /// Transactions that don't come from a direct purchase: renewals, Ask to Buy approvals, refunds,
    /// purchases on other devices, and unfinished ones at launch.
    private func listenForTransactions() -> Task<Void, Never> {
        Task.detached { [weak self] in
            for await result in Transaction.updates {
                do {
                    guard let self else { return }
                    let transaction = try self.checkVerified(result)
                    await self.deliver(transaction)
                    await self.updateCustomerProductStatus()
                    await transaction.finish()
                } catch {
                    print("Transaction failed verification: \(error)")
                }
            }
        }
    }

    public func requestProducts() async {
        do {
            let storeProducts = try await Product.products(for: Self.productIDs)
            cars = storeProducts.filter { $0.type == .nonConsumable }.sorted { $0.price < $1.price }
            fuel = storeProducts.filter { $0.type == .consumable }.sorted { $0.price < $1.price }
            subscriptions = storeProducts.filter { $0.type == .autoRenewable }.sorted { $0.price < $1.price }
            nonRenewables = storeProducts.filter { $0.type == .nonRenewable }.sorted { $0.price < $1.price }
        } catch {
            print("Failed product request from the App Store server: \(error)")
        }
    }

    /// Buys a product; nil when the purchase is pending or the customer cancelled.
    @discardableResult
    public func purchase(_ product: Product, options: Set<Product.PurchaseOption> = []) async throws -> Transaction? {
        switch try await product.purchase(options: options) {
        case .success(let verification):
            let transaction = try checkVerified(verification)
            deliver(transaction)
            await updateCustomerProductStatus()
            await transaction.finish()
            return transaction
        case .userCancelled, .pending:
            return nil
        @unknown default:
            return nil
        }
    }

    public func isPurchased(_ product: Product) -> Bool {
        switch product.type {
        case .nonRenewable: purchasedNonRenewableSubscriptions.contains(product)
        case .nonConsumable: purchasedCars.contains(product)
        case .autoRenewable: purchasedSubscriptions.contains(product)
        default: false
        }
    }

    nonisolated func checkVerified<T>(_ result: VerificationResult<T>) throws -> T {
        switch result {
        case .unverified: throw StoreError.failedVerification
        case .verified(let safe): return safe
        }
    }

    /// Fills the tank for a fuel purchase, once per transaction (an update may bring it again).
    private func deliver(_ transaction: Transaction) {
        guard transaction.productType == .consumable, transaction.revocationDate == nil,
              delivered.insert(transaction.id).inserted else { return }
        fuelTank[transaction.productID, default: 0] += transaction.purchasedQuantity
    }

    /// What the customer owns now, from their current entitlements.
    public func updateCustomerProductStatus() async {
        var purchasedCars: [Product] = []
        var purchasedSubscriptions: [Product] = []
        var purchasedNonRenewableSubscriptions: [Product] = []

        for await result in Transaction.currentEntitlements {
            do {
                let transaction = try checkVerified(result)
                switch transaction.productType {
                case .nonConsumable:
                    if let car = cars.first(where: { $0.id == transaction.productID }) { purchasedCars.append(car) }
                case .nonRenewable:
                    // A non-renewing subscription lasts a year from its purchase: the app's rule, not the store's.
                    if let plan = nonRenewables.first(where: { $0.id == transaction.productID }),
                       let end = Calendar(identifier: .gregorian).date(byAdding: .year, value: 1, to: transaction.purchaseDate), Date() < end {
                        purchasedNonRenewableSubscriptions.append(plan)
                    }
                case .autoRenewable:
                    if let subscription = subscriptions.first(where: { $0.id == transaction.productID }) {
                        purchasedSubscriptions.append(subscription)
                    }
                default:
                    break
                }
            } catch {
                print("Entitlement failed verification: \(error)")
            }
        }

        self.purchasedCars = purchasedCars
        self.purchasedNonRenewableSubscriptions = purchasedNonRenewableSubscriptions
        self.purchasedSubscriptions = purchasedSubscriptions
        // The customer holds at most one subscription in the group: its status is the group's.
        subscriptionGroupStatus = try? await subscriptions.first?.subscription?.status.first?.state
    }

    /// The "Restore Purchases" button.
    public func restore() async throws {
        try await AppStore.sync()
        await updateCustomerProductStatus()
    }
}
