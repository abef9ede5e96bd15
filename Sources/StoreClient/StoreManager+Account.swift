import Foundation
import StoreCore
import StoreEngine
@_spi(Storefront) import StoreKit

/// What the customer asks of the App Store beside buying: restore, redeem a code, ask for a refund.
extension StoreManager {
    /// `AppStore.sync()`, only from an explicit Restore Purchases action.
    public func restore() async {
        snapshot.lastError = nil // the last error is the last action's
        do {
            try await storeKit { try await AppStore.sync() }
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

    /// The refund request sheet, where the customer submits `reason`.
    @discardableResult
    public func requestRefund(transactionID: Int64, reason: String) async -> Result<RefundRequestOutcome, StoreFailure> {
        snapshot.lastError = nil // the last error is the last action's
        do {
            let scene = UIWindowScene(answering: .requestRefund(reason: reason))
            let status = try await storeKit { try await Transaction.beginRefundRequest(for: UInt64(transactionID), in: scene) }
            let outcome: RefundRequestOutcome = status == .success ? .success : .userCancelled
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

    /// What went wrong, in the store's words: what StoreKit threw, or the store or ledger beneath it.
    static func failure(_ error: any Error) -> StoreFailure {
        switch error {
        case let e as StoreFailure: e
        case StoreKit.StoreKitError.systemError(let cause as LedgerError): failure(cause)
        case let e as StoreKit.StoreKitError: .storeKit(e.storeCode)
        case let e as StoreKit.Product.PurchaseError: .purchase(StoreCore.PurchaseError(rawValue: e.rawValue) ?? .productUnavailable)
        case let e as Transaction.RefundRequestError: .refund(StoreCore.RefundRequestError(rawValue: e.rawValue) ?? .failed)
        case let e as StoreCore.StoreKitError: .storeKit(e)
        case let e as StoreCore.PurchaseError: .purchase(e)
        case let e as VerificationError: .verification(e)
        case let e as StoreCore.RefundRequestError: .refund(e)
        case let e as OfferCodeError: .offerCode(e)
        // The device could not record it (StoreKit's systemError), not an unknown failure.
        case LedgerError.diskFull: .storeKit(.systemError)
        // A shared ledger out of reach is the App Store out of reach: nothing was charged, try again.
        case let e as LedgerError where e.isOutOfReach: .storeKit(.networkError)
        default: .storeKit(.unknown)
        }
    }
}

