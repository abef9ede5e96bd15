import Foundation
import StoreCore

/// `StoreTestControls`: what Xcode's Transaction Manager and `SKTestSession` do to the store.
extension LocalAppStore {
    // MARK: Refund requests

    public func requestRefund(transactionID: Int64, reason: String) async throws -> RefundRequestOutcome {
        try await simulateNetwork(.refundRequest, delay: true)
        catchUp()  // a renewal due first renews before auto-renew goes off
        let row = try controls.refundRequested(ledger.row(transactionID))
        try ledger.db.transaction {
            try ledger.update(row)
            var record = try subscription(of: row)
            // Apple: the App Store "turned off subscription auto-renewal after the customer requested a refund".
            if var renewing = record, renewing.isActive, renewing.willAutoRenew {
                renewing.setAutoRenew(false)
                try save(renewing, notifying: .autoRenewChanged(enabled: false))
                record = renewing
            }
            try enqueueNotification(.refundRequested(row.payload.productType), transaction: row.payload, record: record,
                                    data: ["consumptionRequestReason": .string(ConsumptionRequestReason(customerReason: reason).rawValue)])
        }
        if currentSettings.autoApproveRefunds { try decideRefundRequest(transactionID: transactionID, approve: true) }
        return .success
    }

    // MARK: Test controls

    public func settings() -> TestSettings { currentSettings }

    public func update(_ change: @Sendable (inout TestSettings) -> Void) {
        change(&currentSettings)
        if currentSettings.timeRate != clock.rate { setTimeRate(currentSettings.timeRate) }
        saveSettings()
    }

    func saveSettings() {
        let text = CatalogFormat.encode(currentSettings).compact
        try? ledger.setSharedMeta("settings", text)
        follower.wrote(settings: text)
    }

    public func setStorefront(_ code: String, locale: String?) throws {
        guard let sf = catalog.storefront(code) else {
            throw TestControlError("unknown storefront \(code) (the catalog sells in \(catalog.storefronts.map(\.code).joined(separator: ", ")))")
        }
        currentStorefront = sf
        currentLocale = locale ?? sf.locale
        currentSettings.storefront = sf.code
        currentSettings.locale = currentLocale
        saveSettings()
    }

    public func ledgerEntries(limit: Int?) -> [LedgerEntry] {
        catchUp()
        let refunds = (try? ledger.upgradeRefunds()) ?? [:]
        let consumption = (try? ledger.consumptions()) ?? [:]
        return read([]) { try ledger.allRows(limit: limit) }.map {
            LedgerEntry(payload: $0.payload, status: $0.status, isFinished: $0.finished, refundRequest: $0.refundRequest, jws: $0.jws,
                        upgradeRefundMilliunits: refunds[$0.payload.transactionID],
                        consumption: consumption[$0.payload.transactionID].flatMap { try? JSONParser.parse($0) })
        }
    }

    /// The tester's controls over one transaction, at the store's time now.
    var controls: TransactionControls { TransactionControls(now: now()) }

    func pendingRow(_ id: Int64, _ status: LedgerEntry.Status) throws -> Ledger.Row {
        try controls.pending(ledger.row(id), id: id, status)
    }

    /// Completes a pending purchase; the app learns of it through updates. A pending plan change
    /// takes effect as the change would have when bought.
    func complete(_ row: Ledger.Row) throws {
        if let item = catalog.product(row.payload.productID), item.type == .autoRenewable, let change = try planChange(to: item) {
            let options = PurchaseOptions(quantity: row.payload.quantity, appAccountToken: row.payload.appAccountToken,
                                          billingPlan: row.payload.billingPlanType ?? .upFront)
            _ = try applyChange(change, to: item, options: options, offer: nil, kind: .update, pending: row.payload.transactionID)
            return
        }
        try commit(Checkout.completed(row.payload, at: now()), kind: .update, replacing: true)
    }

    public func approveAskToBuy(transactionID: Int64) throws {
        try complete(pendingRow(transactionID, .pendingApproval))
    }

    public func declineAskToBuy(transactionID: Int64) throws {
        var row = try pendingRow(transactionID, .pendingApproval)
        row.status = .declined
        try ledger.db.transaction {
            try ledger.update(row)
            try ledger.appendEvent(transactionID: transactionID, kind: .silent, origin: delivery.origin)
        }
    }

    public func resolveInterruptedPurchase(transactionID: Int64) throws {
        try complete(pendingRow(transactionID, .interrupted))
    }

    public func refund(transactionID: Int64, prorated: Bool, reason: TransactionPayload.RevocationReason) throws {
        let refund = controls.refund(of: prorated ? try ledger.row(transactionID) : nil, prorated: prorated)
        try revoke(transactionID, reason: reason, type: refund.type, percentage: refund.percentage)
    }

    public func revokeFamilySharing(transactionID: Int64) throws {
        try revoke(transactionID, reason: .other, type: .familyRevoke, percentage: nil)
    }

    public func decideRefundRequest(transactionID: Int64, approve: Bool) throws {
        let row = try controls.refundDecided(ledger.row(transactionID), id: transactionID, approve: approve)
        try ledger.db.transaction {
            try ledger.update(row)
            if !approve { try enqueueNotification(.refundDeclined, transaction: row.payload, record: subscription(of: row)) }
        }
        if approve { try revoke(transactionID, reason: .other, type: .refundFull, percentage: Proration.fullRefund) }
    }

    /// Marks a transaction revoked, re-signs it, ends its subscription, and tells the app through updates.
    func revoke(_ id: Int64, reason: TransactionPayload.RevocationReason, type: TransactionPayload.RevocationType, percentage: Int?) throws {
        let controls = controls
        var row = try controls.revoked(ledger.row(id), id: id, reason: reason, type: type, percentage: percentage)
        row.jws = asSigned(try sign(row.payload.json))
        try ledger.db.transaction {
            try ledger.update(row)
            if let ended = try controls.ended(ledger.subscription(row.payload.originalTransactionID), by: id) { try ledger.save(ended) }
            try enqueueNotification(type == .familyRevoke ? .familySharingRevoked : .refunded, transaction: row.payload,
                                    record: subscription(of: row))
            try ledger.appendEvent(transactionID: id, kind: .update, origin: delivery.origin)
        }
        pumpEvents()
    }

    /// Reverses a refund (the App Store does when a dispute goes the developer's way): the transaction
    /// is no longer revoked, a subscription it ended is reinstated until it expires, and the app is told.
    public func reverseRefund(transactionID id: Int64) throws {
        let controls = controls
        var row = try controls.reversed(ledger.row(id), id: id)
        row.jws = asSigned(try sign(row.payload.json))
        try ledger.db.transaction {
            try ledger.update(row)
            if let reinstated = try controls.reinstated(ledger.subscription(row.payload.originalTransactionID), by: id) {
                try ledger.save(reinstated)
            }
            try enqueueNotification(.refundReversed, transaction: row.payload, record: subscription(of: row))
            try ledger.appendEvent(transactionID: id, kind: .update, origin: delivery.origin)
        }
        pumpEvents()
    }

    /// The subscription a transaction belongs to, when it is one.
    func subscription(of row: Ledger.Row) throws -> SubscriptionRecord? {
        row.payload.productType == .autoRenewable ? try ledger.subscription(row.payload.originalTransactionID) : nil
    }

    /// Deletes a transaction; a subscription's original transaction goes with all its renewals (Apple's
    /// test session deletes "all related renewal transactions"), and a subscription whose latest went, with them.
    public func deleteTransaction(_ transactionID: Int64) throws {
        guard let row = try ledger.row(transactionID) else { throw TestControlError("no transaction \(transactionID)") }
        let original = row.payload.originalTransactionID
        try ledger.db.transaction {
            let deleted = row.payload.productType == .autoRenewable && transactionID == original
                ? try ledger.transactionIDs(originalID: original) : [transactionID]
            for id in deleted { try ledger.delete(id) }
            if let sub = try ledger.subscription(original), deleted.contains(sub.latestTransactionID) {
                try ledger.deleteSubscription(sub.originalID)
            }
        }
    }

    public func clearTransactions() throws {
        try ledger.db.transaction { try ledger.clear() }
    }

    @discardableResult
    public func buyOutsideApp(productID: String, familyShared: Bool, options: PurchaseOptions) throws -> String? {
        guard let item = catalog.product(productID) else { throw TestControlError("unknown product \(productID)") }
        guard let price = item.price(in: currentStorefront.code, on: options.billingPlan) else { throw StoreFailure.storeKit(.notAvailableInStorefront) }
        if familyShared, !item.isFamilyShareable { throw TestControlError("\(productID) is not family shareable") }
        guard Checkout.allowedQuantities(of: item.type).contains(options.quantity) else { throw StoreFailure.purchase(.invalidQuantity) }
        try checkPurchaseDate(options, of: item)
        // A family member's subscription stands beside the customer's own; the app grants the higher level.
        if item.type == .autoRenewable, !familyShared, let change = try planChange(to: item) {
            guard case .success(let jws) = try applyChange(change, to: item, options: options, offer: nil, kind: .update) else { return nil }
            return jws
        }
        let (offer, code) = try testOffer(item, options: options)
        var payload = try newPayload(item, price: price, options: options, offer: offer)
        if familyShared {
            // A family member's purchase is theirs: it starts its own original transaction.
            payload.ownership = .familyShared
            payload.originalTransactionID = payload.transactionID
            payload.originalPurchaseDate = payload.purchaseDate
        }
        return try commitPurchase(payload, kind: .update, options: options, redeeming: code).map(present)
    }

    /// The offer a test's purchase asks for by name (StoreKitTest's `codeOffer(referenceName:)` and
    /// `promotionalOffer(id:)`), checked as a redemption or a promotional offer is, but with no code typed
    /// and no signature; and the offer code it redeems. None asked: no offer.
    func testOffer(_ item: CatalogProduct, options: PurchaseOptions) throws -> (SubscriptionOffer?, redeeming: String?) {
        if let name = options.codeOfferReferenceName {
            guard let code = catalog.offerCodes.first(where: { $0.productID == item.id && OfferCode.normalize($0.referenceName) == OfferCode.normalize(name) })
            else { throw StoreFailure.purchase(.invalidOfferIdentifier) }
            let redemption = try redemption(of: code, for: item)
            if redemption.refusal(at: now()) != nil { throw StoreFailure.purchase(.ineligibleForOffer) }
            return (redemption.offer, code.code)
        }
        if let id = options.unsignedPromotionalOfferID {
            guard let offer = item.subscription?.promotionalOffers.first(where: { $0.id == id && $0.billingPlan == options.billingPlan })
            else { throw StoreFailure.purchase(.invalidOfferIdentifier) }
            return (offer, nil)
        }
        return (nil, nil)
    }

    public func reset() throws {
        try clearTransactions()
        (pendingPurchaseIntents, promotions) = ([], [])
        currentSettings = catalog.settings
        try ledger.db.execute("DELETE FROM meta WHERE key IN ('settings', 'originalAppVersion', 'originalPurchaseDate', 'originalPlatform')")
        follower.wrote(settings: nil)
        let real = time.now()
        clock = StoreClock(rate: catalog.settings.timeRate, realAnchor: real, storeAnchor: real)
        saveClock()
        if let sf = catalog.storefront(catalog.settings.storefront ?? currentStorefront.code) { currentStorefront = sf }
        currentLocale = catalog.settings.locale ?? currentStorefront.locale
    }
}
