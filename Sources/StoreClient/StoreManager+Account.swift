import Foundation
import StoreCore
import StoreEngine

/// What the customer asks of the App Store beside buying: restore, redeem a code, ask for a refund.
extension StoreManager {
    /// `AppStore.sync()`, only from an explicit Restore Purchases action.
    public func restore() async {
        snapshot.lastError = nil // the last error is the last action's
        do {
            try await source.sync()
            await refresh()
            // Entitlements are exactly the restorable purchases in force: consumables are never among them.
            emit(.restored(count: snapshot.entitlements.count))
        } catch {
            emit(.failed(.appStoreSync, Self.failure(error)))
        }
    }

    /// The offer-code redeem sheet; the transaction itself arrives through updates.
    @discardableResult
    public func redeem(offerCode: String) async -> StoreFailure? {
        snapshot.lastError = nil // the last error is the last action's
        do {
            try await source.redeem(offerCode: offerCode)
            emit(.redeemed(code: OfferCode.normalize(offerCode)))
            return nil
        } catch {
            emit(.failed(.offerCodeRedeem, Self.failure(error)))
            return Self.failure(error)
        }
    }

    @discardableResult
    public func requestRefund(transactionID: Int64, reason: String) async -> Result<RefundRequestOutcome, StoreFailure> {
        snapshot.lastError = nil // the last error is the last action's
        do {
            let outcome = try await source.requestRefund(transactionID: transactionID, reason: reason)
            emit(.refundRequested(transactionID: transactionID, outcome: outcome))
            await refresh()
            return .success(outcome)
        } catch {
            emit(.failed(.refundRequest, Self.failure(error)))
            return .failure(Self.failure(error))
        }
    }

    public func resetWallet() async throws {
        try await wallet.reset()
        await refresh()
    }

    static func failure(_ error: any Error) -> StoreFailure {
        switch error {
        case let e as StoreFailure: e
        case let e as StoreKitError: .storeKit(e)
        case let e as PurchaseError: .purchase(e)
        case let e as VerificationError: .verification(e)
        case let e as RefundRequestError: .refund(e)
        case let e as OfferCodeError: .offerCode(e)
        // The device could not record it (StoreKit's systemError), not an unknown failure.
        case LedgerError.diskFull: .storeKit(.systemError)
        // A shared ledger out of reach is the App Store out of reach: nothing was charged, try again.
        case let e as LedgerError where e.isOutOfReach: .storeKit(.networkError)
        default: .storeKit(.unknown)
        }
    }
}

