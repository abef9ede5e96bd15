import Foundation
import StoreCore
import StoreSigning

/// Subscriptions: offers and eligibility, upgrades and downgrades, renewals on the store clock,
/// billing retry and grace, price increases, and status as StoreKit reports it.
extension LocalAppStore {
    // MARK: Offers

    /// The offer a purchase gets (see `OfferEligibility`); `promotion` is what the promotional
    /// offer's signature says.
    /// `introductoryOffer`: what the team's server said of the introductory offer (nil: the history decides).
    func offerFor(_ item: CatalogProduct, options: PurchaseOptions, promotion: SignedPromotion?,
                  introductoryOffer allowed: Bool? = nil) throws -> SubscriptionOffer? {
        let history = try item.subscription.map { try ledger.subscriptions(group: $0.groupID) } ?? []
        let offer = try OfferEligibility(history: history).offer(for: item.id, terms: item.subscription, requested: options, promotion: promotion)
        guard let allowed, let terms = item.subscription, options.promotionalOffer == nil, options.winBackOfferID == nil else { return offer }
        return allowed ? terms.introductoryOffer(on: options.billingPlan) : nil
    }

    public func isEligibleForIntroOffer(groupID: String) -> Bool {
        guard let history = try? ledger.subscriptions(group: groupID) else { return false }
        return OfferEligibility(history: history).isEligibleForIntroOffer
    }

    /// Issues a promotional offer signature as a developer's server would (a JWS, like Apple's V2 offers).
    public func signPromotionalOffer(productID: String, offerID: String) throws -> String {
        guard catalog.product(productID)?.subscription?.offer(id: offerID) != nil else {
            throw TestControlError("\(productID) has no promotional offer \(offerID)")
        }
        let payload: JSONValue = ["productId": .string(productID), "offerIdentifier": .string(offerID),
                                  "nonce": .string(UUID().uuidString.lowercased()), "bundleId": .string(catalog.app.bundleID),
                                  "signedDate": .number(String(Int64(now().timeIntervalSince1970 * 1000)))]
        return try sign(payload)
    }

    /// What a promotional offer signature says, when this store signed it; nil otherwise.
    func storeSignedPromotion(_ signature: String) throws -> SignedPromotion? {
        guard let claims = SignatureCheck(identity: identity).verifiedPayload(signature), let nonce = claims["nonce"]?.stringValue else {
            return nil
        }
        let used = try ledger.isNonceUsed(nonce)
        return SignedPromotion(productID: claims["productId"]?.stringValue, offerID: claims["offerIdentifier"]?.stringValue,
                               nonce: nonce, isNonceUsed: used)
    }

    // MARK: Changing plans

    /// A change from the customer's current subscription in a group.
    typealias ChangeOfPlan = (kind: PlanChange, current: SubscriptionRecord)

    func activeSubscription(group: String) -> SubscriptionRecord? {
        groupSubscription(group).flatMap { $0.isActive ? $0 : nil }
    }

    /// The customer's own subscription in a group, active or lapsed: the group's original transaction,
    /// which a resubscription continues. (A ledger from before this rule may hold several; the newest counts.)
    func groupSubscription(_ group: String) -> SubscriptionRecord? {
        ((try? ledger.subscriptions(group: group)) ?? []).filter { !$0.familyShared }.max { $0.latestTransactionID < $1.latestTransactionID }
    }

    /// How buying `item` changes the customer's active subscription in its group; nil when there is none.
    func planChange(to item: CatalogProduct) throws -> ChangeOfPlan? {
        guard let terms = item.subscription, let current = activeSubscription(group: terms.groupID),
              let currentTerms = catalog.product(current.productID)?.subscription else { return nil }
        return (PlanChange(from: (current.productID, currentTerms), to: (item.id, terms)), current)
    }

    /// `pending` is the ID of an Ask to Buy request for the change, now approved: an upgrade takes
    /// its ID; a change at renewal makes no transaction, so the request goes. `code`: an offer code redeemed for it.
    func applyChange(_ change: ChangeOfPlan, to item: CatalogProduct, options: PurchaseOptions, offer: SubscriptionOffer?,
                     kind: Ledger.EventKind = .purchase, pending: Int64? = nil, redeeming code: String? = nil) throws -> PurchaseOutcome {
        var record = change.current
        switch change.kind {
        case .alreadySubscribed:
            // Subscribed already: nothing to charge; a change waiting for the renewal is called off, and an approved request goes.
            try ledger.db.transaction {
                try callOffChange(record, keeping: item.id)
                if let pending { try ledger.delete(pending) }
            }
            guard let jws = try ledger.jws(record.latestTransactionID) else { throw StoreFailure.storeKit(.unknown) }
            return .success(jws: present(jws))
        case .atRenewal:
            record.autoRenewProductID = item.id
            record.willAutoRenew = true
            // A (promotional) offer taken with the change discounts the renewal that makes it, and Apple calls that
            // OFFER_REDEEMED DOWNGRADE; an offer not yet used was for the old plan.
            let redeemed = offer.flatMap { $0.type == .promotional || $0.type == .code ? $0 : nil }
            record.offer = redeemed.map { SubscriptionRecord.CarriedOffer(redeemed: $0, for: item.id, storefront: currentStorefront.code) }
            let event: StoreEvent = redeemed == nil ? .renewalPreferenceChanged(backToCurrent: item.id == record.productID)
                : .offerRedeemedForNextRenewal(sameProduct: item.id == record.productID)
            try ledger.db.transaction {
                try save(record, notifying: event)
                if let pending { try ledger.delete(pending) }
            }
            guard let jws = try ledger.jws(record.latestTransactionID) else { throw StoreFailure.storeKit(.unknown) }
            return .success(jws: present(jws))
        case .immediate:
            let outcome = try ledger.db.transaction {
                try upgrade(&record, to: item, options: options, offer: offer, kind: kind, pending: pending, redeeming: code)
            }
            pumpEvents()
            return outcome
        }
    }

    /// A subscriber's promotional offer on the plan they have: nothing is charged now, and it applies
    /// from the next renewal (renewal info shows it meanwhile), as an active subscriber's offer code does.
    func carryToNextRenewal(_ offer: SubscriptionOffer, of item: CatalogProduct, nonce: String) throws {
        guard var record = try planChange(to: item)?.current else { return }
        record.offer = SubscriptionRecord.CarriedOffer(redeemed: offer, for: item.id, storefront: currentStorefront.code)
        record.willAutoRenew = true
        try ledger.db.transaction {
            try save(record, notifying: .offerRedeemedForNextRenewal(sameProduct: true))
            guard try ledger.useNonce(nonce) else { throw StoreFailure.purchase(.invalidOfferSignature) }  // rolls the offer back
        }
    }

    /// Buying the current plan again calls off a change waiting for the renewal (a downgrade, a crossgrade).
    func callOffChange(_ record: SubscriptionRecord, keeping productID: String) throws {
        guard record.autoRenewProductID != productID else { return }
        var record = record
        record.autoRenewProductID = productID
        if let offer = record.offer, let other = offer.productID, other != productID { record.offer = nil }  // it was for the change
        try save(record, notifying: .renewalPreferenceChanged(backToCurrent: true))
    }

    /// The old transaction is marked upgraded and the new one starts now, on the same original ID, in one write.
    private func upgrade(_ record: inout SubscriptionRecord, to item: CatalogProduct, options: PurchaseOptions,
                         offer: SubscriptionOffer?, kind: Ledger.EventKind, pending: Int64?, redeeming code: String?) throws -> PurchaseOutcome {
        guard var old = try ledger.row(record.latestTransactionID) else { throw StoreFailure.storeKit(.unknown) }
        old.payload.isUpgraded = true
        old.payload.signedDate = now()
        old.jws = asSigned(try sign(old.payload.json))
        try ledger.update(old)
        let refund = Proration(start: old.payload.purchaseDate, end: old.payload.expirationDate)
            .upgradeRefund(ofMilliunits: old.payload.priceMilliunits, at: now())
        try ledger.recordUpgradeRefund(transactionID: old.payload.transactionID, milliunits: refund)
        record.state = .expired
        try ledger.save(record)
        var payload = try newPayload(item, price: item.price(in: currentStorefront.code, on: options.billingPlan) ?? 0,
                                     options: options, offer: offer,
                                     originalID: record.originalID, originalDate: old.payload.originalPurchaseDate)
        if let pending { payload.transactionID = pending }
        guard let jws = try commit(payload, kind: kind, redeeming: code, replacing: pending != nil, upgrade: true) else { throw StoreFailure.storeKit(.unknown) }
        return .success(jws: present(jws))
    }

    /// Creates or advances the group's renewal state for a new subscription transaction; the
    /// subscription's state before (nil: it is new) and its record after.
    func startOrExtendSubscription(with payload: TransactionPayload) throws -> (previous: SubscriptionState?, record: SubscriptionRecord?) {
        let existing = try ledger.subscription(payload.originalTransactionID)
        guard let group = payload.subscriptionGroupID, payload.expirationDate != nil,
              var record = existing ?? SubscriptionRecord(startedBy: payload) else { return (existing?.state, existing) }
        // A lapsed customer who buys again starts a new subscription on the same original transaction.
        for lapsed in try payload.reason == .renewal ? [] : ledger.subscriptions(group: group) {
            if let ended = lapsed.ended(by: payload) { try ledger.save(ended) }
        }
        record.take(payload, offer: terms.carriedOffer(payload), lapseLimit: clock.rate.compressed(60 * 86_400))
        try ledger.save(record)
        return (existing?.state, record)
    }

    // MARK: Status

    public func subscriptionStatuses(groupID: String) async throws -> [SignedSubscriptionStatus] {
        try statuses(of: [groupID])[groupID] ?? []
    }

    public func subscriptionStatuses(groupIDs: [String]) async throws -> [String: [SignedSubscriptionStatus]] {
        try statuses(of: groupIDs)
    }

    /// The groups' statuses from one read of the records and one batched read of their tokens.
    func statuses(of groupIDs: [String]) throws -> [String: [SignedSubscriptionStatus]] {
        try injected.check(.subscriptionStatus)
        catchUp()
        let byGroup = try groupIDs.count == 1 ? [groupIDs[0]: ledger.subscriptions(group: groupIDs[0])] : ledger.subscriptionsByGroup()
        let tokens = try self.tokens(groupIDs.flatMap { byGroup[$0]?.map(\.latestTransactionID) ?? [] })
        var statuses: [String: [SignedSubscriptionStatus]] = [:]
        for groupID in groupIDs {
            statuses[groupID] = try (byGroup[groupID] ?? []).compactMap { record in
                guard let jws = tokens[record.latestTransactionID] else { return nil }
                return SignedSubscriptionStatus(state: record.state, transaction: present(jws),
                                                renewalInfo: present(asSigned(try signedRenewalInfo(record))))
            }
        }
        return statuses
    }

    /// The tokens of transactions `ids` (see `SignedDataPresenter.tokens`).
    func tokens(_ ids: [Int64]) throws -> [Int64: String] {
        try presenter.tokens(ids, at: ledger.stamp(), read: ledger.jws)
    }

    public func introOfferEligibility(groupIDs: [String]) async -> [String: Bool] {
        let history = read([:]) { try ledger.subscriptionsByGroup() }
        return Dictionary(uniqueKeysWithValues: groupIDs.map { ($0, OfferEligibility(history: history[$0] ?? []).isEligibleForIntroOffer) })
    }

    /// The subscription's renewal info, signed again only when what it says has changed (see `SignedDataPresenter`).
    func signedRenewalInfo(_ record: SubscriptionRecord) throws -> String {
        try presenter.signedRenewalInfo(record, storefront: currentStorefront, environment: currentSettings.environment) {
            renewalInfo(record)
        }
    }

    /// The subscription's renewal info, as it stands now.
    func renewalInfo(_ record: SubscriptionRecord) -> RenewalInfoPayload {
        terms.renewalInfo(record, storefront: currentStorefront, environment: currentSettings.environment, at: now())
    }
}
