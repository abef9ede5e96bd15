import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// Runs effects against the store and reports back as events. The UI sees the app side through
/// `StoreManager` only; the QA panel's commands go to `StoreTestControls`.
struct EffectRunner: Sendable {
    let manager: StoreManager
    let controls: any StoreTestControls

    func run(_ effect: Effect) async -> EffectOutcome {
        switch effect {
        case .purchase(let id, var options, let answer):
            if let promo = options.promotionalOffer, promo.signature == nil {
                // The developer's server signs promotional offers; the local store plays that part.
                options.promotionalOffer = (id: promo.id, signature: try? await controls.signPromotionalOffer(productID: id, offerID: promo.id))
            }
            return .purchase(productID: id, await manager.purchase(id, options: options, answer: answer))
        case .restore:
            await manager.restore()
            return .done(await manager.snapshot.lastEvent?.message ?? "Restored")
        case .redeem(let code):
            return .redeem(code: code, await manager.redeem(offerCode: code))
        case .refresh:
            await manager.refresh()
            return .done("Refreshed")
        case .requestRefund(let id, let reason):
            switch await manager.requestRefund(transactionID: id, reason: reason) {
            case .success: return .done("Refund requested; the App Store decides in the QA panel (4)")
            case .failure(let f): return .failed("Refund request failed: \(f.message)")
            }
        case .manage(let group, let action):
            if let failure = await manager.manageSubscription(groupID: group, action) {
                return .failed("Manage subscriptions: \(await manager.snapshot.lastMessage ?? failure.message)")
            }
            return .done(ManageSubscriptionsSheet.describe(action))
        case .qa(let command):
            do {
                let message = try await run(command)
                await manager.loadProducts()  // storefront/locale changes re-price the catalog
                await manager.refresh()
                return .done(message)
            } catch let error as StoreFailure {
                return .failed(error.message)
            } catch {
                return .failed("\(error)")
            }
        case .writeFile(let path, let contents):
            do {
                try Data(contents.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                return .done("Wrote \(path)")
            } catch {
                return .failed("Cannot write \(path): \((error as NSError).localizedDescription)")
            }
        case .quit:
            return .done("Bye")
        case .walk:
            return .done("")  // the run loop hands these to the WalkSession
        }
    }

    private func run(_ command: QACommand) async throws -> String {
        let c = controls
        switch command {
        case .approveAskToBuy(let id): try await c.approveAskToBuy(transactionID: id); return "Approved #\(id)"
        case .declineAskToBuy(let id): try await c.declineAskToBuy(transactionID: id); return "Declined #\(id)"
        case .resolveInterrupted(let id): try await c.resolveInterruptedPurchase(transactionID: id); return "Resolved #\(id)"
        case .refund(let id, let prorated):
            try await c.refund(transactionID: id, prorated: prorated); return prorated ? "Refunded #\(id) (prorated)" : "Refunded #\(id)"
        case .revokeFamily(let id): try await c.revokeFamilySharing(transactionID: id); return "Family Sharing revoked for #\(id)"
        case .decideRefund(let id, let approve):
            try await c.decideRefundRequest(transactionID: id, approve: approve)
            return approve ? "Refund request for #\(id) approved" : "Refund request for #\(id) declined"
        case .setOriginalApp(let version, let platform):
            try await c.setOriginalApp(version: version, purchaseDate: nil, platform: platform)
            await manager.loadAppTransaction()
            return "Original app: \(version ?? "") \(platform ?? "")".trimmingCharacters(in: .whitespaces)
        case .delete(let id): try await c.deleteTransaction(id); return "Deleted #\(id)"
        case .expire(let p): try await c.expireSubscription(productID: p); return "Expired \(p)"
        case .forceRenew(let p): try await c.forceRenewal(productID: p); return "Renewed \(p)"
        case .setAutoRenew(let p, let on): try await c.setAutoRenew(productID: p, enabled: on); return "Auto-renew \(on ? "on" : "off") for \(p)"
        case .requestPriceIncrease(let p): try await c.requestPriceIncrease(productID: p); return "Price increase requested for \(p)"
        case .respondToPriceIncrease(let p, let agree):
            try await c.respondToPriceIncrease(productID: p, agree: agree); return "Price increase \(agree ? "accepted" : "declined")"
        case .resolveBillingIssue(let p): try await c.resolveBillingIssue(productID: p); return "Billing issue resolved for \(p)"
        case .buyOutsideApp(let p, let family):
            try await c.buyOutsideApp(productID: p, familyShared: family); return family ? "Family member bought \(p)" : "Bought \(p) outside the app"
        case .clearTransactions: try await c.clearTransactions(); try await manager.resetWallet(); return "Transactions cleared"
        case .reset: try await c.reset(); try await manager.resetWallet(); return "Store reset"
        case .setStorefront(let code, let locale):
            try await c.setStorefront(code, locale: locale); return "Storefront \(code)" + (locale.map { ", locale \($0)" } ?? "")
        case .setTimeRate(let rate): await c.setTimeRate(rate); return "Time rate: \(rate.title)"
        case .advanceTime(let period): await c.advanceTime(by: period); return "Advanced time by \(period.words)"
        case .toggle(let t):
            await c.update { $0[keyPath: t.keyPath].toggle() }
            return "\(t.title): \(await c.settings()[keyPath: t.keyPath] ? "on" : "off")"
        case .setFailure(let api, let failure):
            await c.update { $0.failures[api] = failure }
            return failure.map { "\(api.title) will fail with \($0.name)" } ?? "\(api.title) failures cleared"
        }
    }
}
