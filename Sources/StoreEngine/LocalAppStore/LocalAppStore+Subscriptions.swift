import Foundation
import StoreCore
import StoreSigning

/// Subscriptions: offers and eligibility, upgrades and downgrades, renewals on the store clock,
/// billing retry and grace, price increases, and status as StoreKit reports it.
extension LocalAppStore {
    // MARK: Offers

    /// The offer a purchase gets: an explicit promotional or win-back offer, else the introductory
    /// offer when the customer is eligible.
    func offerFor(_ item: CatalogProduct, options: PurchaseOptions) throws -> SubscriptionOffer? {
        guard let terms = item.subscription else {
            if options.promotionalOffer != nil || options.winBackOfferID != nil { throw StoreFailure.purchase(.ineligibleForOffer) }
            return nil
        }
        if let promo = options.promotionalOffer {
            guard let offer = terms.promotionalOffers.first(where: { $0.id == promo.id }) else {
                throw StoreFailure.purchase(.invalidOfferIdentifier)
            }
            guard let signature = promo.signature, !signature.isEmpty else { throw StoreFailure.purchase(.missingOfferParameters) }
            try checkPromotionalSignature(signature, productID: item.id, offerID: promo.id)
            // Promotional offers are for existing or lapsed subscribers of the group.
            guard try !ledger.subscriptions(group: terms.groupID).isEmpty else { throw StoreFailure.purchase(.ineligibleForOffer) }
            return offer
        }
        if let winBackID = options.winBackOfferID {
            guard let offer = terms.winBackOffers.first(where: { $0.id == winBackID }) else {
                throw StoreFailure.purchase(.invalidOfferIdentifier)
            }
            guard offer.isEligible, try customerEligibility(for: item) == .expired else { throw StoreFailure.purchase(.ineligibleForOffer) }
            return offer
        }
        if let intro = terms.introductoryOffer, isEligibleForIntroOffer(groupID: terms.groupID) { return intro }
        return nil
    }

    /// Introductory offers: once per subscription group per customer.
    public func isEligibleForIntroOffer(groupID: String) -> Bool {
        (try? ledger.hasSubscription(group: groupID)) == false
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

    func checkPromotionalSignature(_ signature: String, productID: String, offerID: String) throws {
        let verifier = SignatureCheck(identity: identity)
        guard let json = verifier.verifiedPayload(signature), json["productId"]?.stringValue == productID,
              json["offerIdentifier"]?.stringValue == offerID, let nonce = json["nonce"]?.stringValue else {
            throw StoreFailure.purchase(.invalidOfferSignature)
        }
        let used = try !ledger.db.query("SELECT 1 FROM nonces WHERE nonce = ?", [.text(nonce)]).isEmpty
        if used { throw StoreFailure.purchase(.invalidOfferSignature) }
    }

    func promotionalNonce(_ signature: String?) -> String? {
        signature.flatMap { SignatureCheck(identity: identity).verifiedPayload($0)?["nonce"]?.stringValue }
    }

    // MARK: Changing plans

    enum PlanChange {
        /// Takes effect now: the old transaction is marked upgraded and a new one starts.
        case immediate(SubscriptionRecord)
        /// Takes effect at the next renewal: only `autoRenewPreference` changes now.
        case atRenewal(SubscriptionRecord)
        case alreadySubscribed(SubscriptionRecord)
    }

    func activeSubscription(group: String) -> SubscriptionRecord? {
        ((try? ledger.subscriptions(group: group)) ?? []).first { !$0.familyShared && ($0.state.grantsAccess || $0.state == .inBillingRetryPeriod) }
    }

    /// Upgrades take effect at once; downgrades at the next renewal; crossgrades at once when the
    /// period is the same, else at the next renewal.
    func planChange(to item: CatalogProduct) throws -> PlanChange? {
        guard let terms = item.subscription, let current = activeSubscription(group: terms.groupID),
              let currentTerms = catalog.product(current.productID)?.subscription else { return nil }
        if current.productID == item.id { return .alreadySubscribed(current) }
        if terms.level < currentTerms.level { return .immediate(current) }
        if terms.level > currentTerms.level { return .atRenewal(current) }
        return terms.period == currentTerms.period ? .immediate(current) : .atRenewal(current)
    }

    /// `pending` is the ID of an Ask to Buy request for the change, now approved: an upgrade takes
    /// its ID; a change at renewal makes no transaction, so the request goes.
    func applyChange(_ change: PlanChange, to item: CatalogProduct, options: PurchaseOptions, offer: SubscriptionOffer?,
                     kind: Ledger.EventKind = .purchase, pending: Int64? = nil) throws -> PurchaseOutcome {
        switch change {
        case .alreadySubscribed:
            throw StoreFailure.purchase(.purchaseNotAllowed)
        case .atRenewal(var record):
            record.autoRenewProductID = item.id
            record.willAutoRenew = true
            try ledger.db.transaction {
                try ledger.save(record)
                if let pending { try ledger.delete(pending) }
            }
            guard let jws = try ledger.jws(record.latestTransactionID) else { throw StoreFailure.storeKit(.unknown) }
            return .success(jws: present(jws))
        case .immediate(var record):
            let outcome = try ledger.db.transaction {
                try upgrade(&record, to: item, options: options, offer: offer, kind: kind, pending: pending)
            }
            pumpEvents()
            return outcome
        }
    }

    /// The old transaction is marked upgraded and the new one starts now, on the same original ID, in one write.
    private func upgrade(_ record: inout SubscriptionRecord, to item: CatalogProduct, options: PurchaseOptions,
                         offer: SubscriptionOffer?, kind: Ledger.EventKind, pending: Int64?) throws -> PurchaseOutcome {
        guard var old = try ledger.row(record.latestTransactionID) else { throw StoreFailure.storeKit(.unknown) }
        old.payload.isUpgraded = true
        old.payload.signedDate = now()
        old.jws = try sign(old.payload.json)
        try ledger.update(old)
        let refund = (Double(old.payload.priceMilliunits) * unusedFraction(of: old.payload)).rounded()
        try ledger.recordUpgradeRefund(transactionID: old.payload.transactionID, milliunits: Int64(refund))
        record.state = .expired
        try ledger.save(record)
        var payload = try newPayload(item, price: item.prices[currentStorefront.code] ?? 0, options: options, offer: offer,
                                     originalID: record.originalID, originalDate: old.payload.originalPurchaseDate)
        if let pending { payload.transactionID = pending }
        guard let jws = try commit(payload, kind: kind, replacing: pending != nil) else { throw StoreFailure.storeKit(.unknown) }
        return .success(jws: present(jws))
    }

    /// The part of a subscription transaction's period not used yet, 0...1: what a prorated refund
    /// returns, and what the App Store refunds when an upgrade replaces the transaction.
    func unusedFraction(of payload: TransactionPayload) -> Double {
        guard let end = payload.expirationDate else { return 0 }
        let total = end.timeIntervalSince(payload.purchaseDate)
        return total > 0 ? min(1, max(0, end.timeIntervalSince(now())) / total) : 0
    }

    /// Creates or advances the group's renewal state for a new subscription transaction.
    func startOrExtendSubscription(with payload: TransactionPayload) throws {
        guard let group = payload.subscriptionGroupID, let expires = payload.expirationDate else { return }
        var record = try ledger.subscription(payload.originalTransactionID) ?? SubscriptionRecord(
            originalID: payload.originalTransactionID, groupID: group, productID: payload.productID,
            autoRenewProductID: payload.productID, latestTransactionID: payload.transactionID, expirationDate: expires,
            state: .subscribed, recentStartDate: payload.purchaseDate)
        // A lapsed customer who buys again starts a new subscription on the same original transaction.
        for var lapsed in try payload.reason == .renewal ? [] : ledger.subscriptions(group: group) where lapsed.originalID != record.originalID
            && !lapsed.familyShared && payload.ownership == .purchased && !lapsed.state.grantsAccess {
            lapsed.state = lapsed.state == .revoked ? .revoked : .expired
            try ledger.save(lapsed)
        }
        if record.productID != payload.productID || record.state != .subscribed { record.autoRenewProductID = payload.productID }
        record.productID = payload.productID
        record.latestTransactionID = payload.transactionID
        record.expirationDate = expires
        record.state = .subscribed
        record.expirationReason = nil
        record.gracePeriodEnd = nil
        record.billingRetryEnd = nil
        record.familyShared = payload.ownership == .familyShared
        record.appAccountToken = payload.appAccountToken
        if payload.reason == .purchase {
            record.recentStartDate = payload.purchaseDate
            record.anchorDay = Period.day(of: payload.purchaseDate)
            record.willAutoRenew = true
            record.offer = carriedOffer(payload)
        }
        try ledger.save(record)
    }

    /// Pay as you go discounts each of its periods: the renewals after the first carry the offer on.
    func carriedOffer(_ payload: TransactionPayload) -> SubscriptionRecord.CarriedOffer? {
        guard payload.offerPaymentMode == .payAsYouGo, let type = payload.offerType, let period = payload.offerPeriod,
              let offer = offerDefinition(type: type, id: payload.offerID, productID: payload.productID), offer.periodCount > 1 else { return nil }
        return .init(type: type, id: payload.offerID, period: period, priceMilliunits: payload.priceMilliunits / Int64(max(payload.quantity, 1)),
                     remainingPeriods: offer.periodCount - 1)
    }

    func offerDefinition(type: OfferType, id: String?, productID: String) -> SubscriptionOffer? {
        let terms = catalog.product(productID)?.subscription
        switch type {
        case .introductory: return terms?.introductoryOffer
        case .promotional: return terms?.promotionalOffers.first { $0.id == id }
        case .winBack: return terms?.winBackOffers.first { $0.id == id }
        case .code: return catalog.offerCodes.first { $0.productID == productID && $0.referenceName == id }?.offer
        }
    }

    // MARK: Time

    /// How long a subscription period lasts on the store clock. Xcode's `oneRenewalEvery…` rates
    /// renew every subscription once per interval whatever its period; the clock runs a month per
    /// interval (30 days), so each period lasts 30 days of store time. Other rates scale every period alike.
    func clockPeriod(_ period: Period) -> Period {
        clock.rate.renewalInterval == nil ? period : Period(30, .day)
    }

    public func advanceTime(by period: Period) {
        clock.advance(to: period.advance(now()), real: time.now())
        saveClock()
        catchUp()
        pumpEvents()
    }

    public func setTimeRate(_ rate: TimeRate) {
        clock.setRate(rate, real: time.now())
        currentSettings.timeRate = rate
        saveClock()
        saveSettings()
    }

    /// Processes every renewal, grace-period end, billing-retry end and expiry that is due, in order.
    func catchUp() {
        let now = now()
        guard let due = try? ledger.subscriptions().filter({ isDue($0, now) }), !due.isEmpty else { return }
        // One write transaction for the whole catch-up: a simulated year commits once, not per renewal.
        try? ledger.batch {
            let pipeline = SigningPipeline(identity.signer)
            signingPipeline = pipeline
            defer { signingPipeline = nil }
            for record in due { try process(record, until: now) }
            for signed in try pipeline.finish() { try ledger.setToken(signed.jws, for: signed.id, payload: signed.payload) }
        }
        pumpEvents()
    }

    func isDue(_ record: SubscriptionRecord, _ now: Date) -> Bool {
        switch record.state {
        case .subscribed: record.expirationDate <= now
        case .inGracePeriod: (record.gracePeriodEnd ?? now) <= now
        case .inBillingRetryPeriod: (record.billingRetryEnd ?? now) <= now
        case .expired, .revoked: false
        }
    }

    func process(_ start: SubscriptionRecord, until now: Date) throws {
        var record = start
        while true {
            switch record.state {
            case .subscribed where record.expirationDate <= now:
                if !record.willAutoRenew || record.priceIncrease == .declined {
                    record.state = .expired
                    record.expirationReason = record.priceIncrease == .declined ? .didNotConsentToPriceIncrease : .autoRenewDisabled
                } else if currentSettings.billingRetryOnRenewal {
                    record.state = currentSettings.gracePeriod ? .inGracePeriod : .inBillingRetryPeriod
                    record.gracePeriodEnd = currentSettings.gracePeriod ? gracePeriodEnd(record) : nil
                    record.billingRetryEnd = record.expirationDate.addingTimeInterval(60 * 86_400)
                } else {
                    record = try renew(record, at: record.expirationDate)
                    continue
                }
                try ledger.save(record)
            case .inGracePeriod where (record.gracePeriodEnd ?? now) <= now:
                record.state = .inBillingRetryPeriod
                try ledger.save(record)
                continue
            case .inBillingRetryPeriod where (record.billingRetryEnd ?? now) <= now:
                record.state = .expired
                record.expirationReason = .billingError
                try ledger.save(record)
            default:
                return
            }
            return
        }
    }

    func gracePeriodEnd(_ record: SubscriptionRecord) -> Date {
        let weekly = catalog.product(record.productID)?.subscription?.period == Period(1, .week)
        return record.expirationDate.addingTimeInterval((weekly ? 6 : 16) * 86_400)
    }

    /// A renewal: a new transaction on the same original ID, for the auto-renew product (a pending
    /// downgrade or crossgrade takes effect here), starting when the last period ended.
    func renew(_ record: SubscriptionRecord, at date: Date) throws -> SubscriptionRecord {
        guard let item = catalog.product(record.autoRenewProductID), let last = try ledger.row(record.latestTransactionID) else {
            var expired = record
            expired.state = .expired
            expired.expirationReason = .productUnavailable
            return expired
        }
        let price = item.prices[last.payload.storefront] ?? item.prices[currentStorefront.code] ?? 0
        var payload = try newPayload(item, price: price, options: PurchaseOptions(), offer: nil, originalID: record.originalID,
                                     originalDate: last.payload.originalPurchaseDate, purchaseDate: date, reason: .renewal)
        payload.ownership = last.payload.ownership
        payload.appAccountToken = last.payload.appAccountToken
        let anchorDay = Period.anchorDay(record.anchorDay, at: date)
        payload.expirationDate = clockPeriod(item.subscription!.period).advance(date, anchorDay: anchorDay)
        var carried = record.offer
        if var offer = carried, offer.remainingPeriods > 0, item.id == record.productID {
            payload.offerType = offer.type
            payload.offerID = offer.id
            payload.offerPaymentMode = .payAsYouGo
            payload.offerPeriod = offer.period
            payload.priceMilliunits = offer.priceMilliunits
            payload.expirationDate = clockPeriod(offer.period).advance(date, anchorDay: anchorDay)
            offer.remainingPeriods -= 1
            carried = offer.remainingPeriods > 0 ? offer : nil
        } else {
            carried = nil
        }
        try commit(payload, kind: .update)
        var renewed = try ledger.subscription(record.originalID) ?? record
        renewed.offer = carried
        renewed.anchorDay = anchorDay
        if renewed.priceIncrease == .agreed { renewed.priceIncrease = nil }
        try ledger.save(renewed)
        return renewed
    }

    // MARK: Subscription test controls

    func record(forProduct productID: String) throws -> SubscriptionRecord {
        catchUp()
        guard let group = catalog.product(productID)?.subscription?.groupID else {
            throw TestControlError("\(productID) is not an auto-renewable subscription")
        }
        let records = try ledger.subscriptions(group: group)
        guard let record = records.first(where: { $0.productID == productID && $0.state != .revoked }) ?? records.first(where: { $0.productID == productID }) else {
            throw TestControlError("no subscription to \(productID)")
        }
        return record
    }

    public func expireSubscription(productID: String) throws {
        var record = try record(forProduct: productID)
        record.state = .expired
        record.expirationReason = record.expirationReason ?? .autoRenewDisabled
        record.willAutoRenew = false
        record.expirationDate = min(record.expirationDate, now())
        try ledger.save(record)
    }

    public func forceRenewal(productID: String) throws {
        let record = try record(forProduct: productID)
        _ = try renew(record, at: now())
    }

    public func setAutoRenew(productID: String, enabled: Bool) throws {
        var record = try record(forProduct: productID)
        record.willAutoRenew = enabled
        if enabled { record.autoRenewProductID = record.autoRenewProductID.isEmpty ? productID : record.autoRenewProductID }
        try ledger.save(record)
    }

    public func requestPriceIncrease(productID: String) throws {
        var record = try record(forProduct: productID)
        record.priceIncrease = .notYetResponded
        try ledger.save(record)
    }

    public func respondToPriceIncrease(productID: String, agree: Bool) throws {
        var record = try record(forProduct: productID)
        guard record.priceIncrease == .notYetResponded else { throw TestControlError("no price increase is waiting for consent") }
        record.priceIncrease = agree ? .agreed : .declined
        try ledger.save(record)
    }

    public func resolveBillingIssue(productID: String) throws {
        let record = try record(forProduct: productID)
        guard record.state == .inBillingRetryPeriod || record.state == .inGracePeriod else {
            throw TestControlError("\(productID) is not in billing retry")
        }
        _ = try renew(record, at: now())
    }

    // MARK: Status

    public func subscriptionStatuses(groupID: String) async throws -> [SignedSubscriptionStatus] {
        if let failure = currentSettings.failures[.subscriptionStatus] { throw failure }
        catchUp()
        return try ledger.subscriptions(group: groupID).compactMap { record in
            guard let jws = try ledger.jws(record.latestTransactionID) else { return nil }
            return SignedSubscriptionStatus(state: record.state, transaction: present(jws), renewalInfo: present(try sign(renewalInfo(record).json)))
        }
    }

    func renewalInfo(_ record: SubscriptionRecord) -> RenewalInfoPayload {
        let next = catalog.product(record.autoRenewProductID)
        let lapsed = record.state == .expired
        var info = RenewalInfoPayload(
            originalTransactionID: record.originalID, productID: record.productID, autoRenewProductID: record.autoRenewProductID,
            willAutoRenew: record.willAutoRenew && !lapsed && record.state != .revoked,
            expirationReason: lapsed ? record.expirationReason : nil,
            isInBillingRetry: record.state == .inBillingRetryPeriod || record.state == .inGracePeriod,
            gracePeriodExpirationDate: record.state == .inGracePeriod ? record.gracePeriodEnd : nil,
            priceIncreaseStatus: record.priceIncrease.map { $0 == .agreed ? .agreed : .notYetResponded },
            renewalDate: lapsed ? nil : record.expirationDate, recentSubscriptionStartDate: record.recentStartDate,
            renewalPriceMilliunits: next?.prices[currentStorefront.code].map(Self.milliunits), currency: currentStorefront.currency,
            eligibleWinBackOfferIDs: lapsed ? (next?.subscription?.winBackOffers.filter(\.isEligible).compactMap(\.id) ?? []) : [],
            signedDate: now(), appTransactionID: appTransactionID)
        info.appAccountToken = record.appAccountToken
        info.environment = currentSettings.environment.rawValue
        return info
    }
}

/// Checks a JWS signed by this store's own identity (promotional offer signatures).
struct SignatureCheck {
    let identity: StoreIdentity

    func verifiedPayload(_ jws: String) -> JSONValue? {
        let result = JWSVerifier(trustedRoots: [identity.certificate]).verify(jws, at: .now)
        guard result.isVerified, let data = result.payload else { return nil }
        return try? JSONParser.parse(data)
    }
}
