import Foundation
import StoreCore
import StoreSigning

/// Subscriptions: offers and eligibility, upgrades and downgrades, renewals on the store clock,
/// billing retry and grace, price increases, and status as StoreKit reports it.
extension LocalAppStore {
    // MARK: Offers

    /// The offer a purchase gets (see `OfferEligibility`); `promotion` is what the promotional
    /// offer's signature says.
    func offerFor(_ item: CatalogProduct, options: PurchaseOptions, promotion: SignedPromotion?) throws -> SubscriptionOffer? {
        let history = try item.subscription.map { try ledger.subscriptions(group: $0.groupID) } ?? []
        return try OfferEligibility(history: history).offer(for: item.id, terms: item.subscription, requested: options, promotion: promotion)
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
    func promotion(_ signature: String) throws -> SignedPromotion? {
        guard let claims = SignatureCheck(identity: identity).verifiedPayload(signature), let nonce = claims["nonce"]?.stringValue else {
            return nil
        }
        let used = try !ledger.db.query("SELECT 1 FROM nonces WHERE nonce = ?", [.text(nonce)]).isEmpty
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
    /// its ID; a change at renewal makes no transaction, so the request goes.
    func applyChange(_ change: ChangeOfPlan, to item: CatalogProduct, options: PurchaseOptions, offer: SubscriptionOffer?,
                     kind: Ledger.EventKind = .purchase, pending: Int64? = nil) throws -> PurchaseOutcome {
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
            record.offer = nil  // an offer not yet used was for the old plan
            try ledger.db.transaction {
                try save(record, notifying: .renewalPreferenceChanged(backToCurrent: item.id == record.productID))
                if let pending { try ledger.delete(pending) }
            }
            guard let jws = try ledger.jws(record.latestTransactionID) else { throw StoreFailure.storeKit(.unknown) }
            return .success(jws: present(jws))
        case .immediate:
            let outcome = try ledger.db.transaction {
                try upgrade(&record, to: item, options: options, offer: offer, kind: kind, pending: pending)
            }
            pumpEvents()
            return outcome
        }
    }

    /// Buying the current plan again calls off a change waiting for the renewal (a downgrade, a crossgrade).
    func callOffChange(_ record: SubscriptionRecord, keeping productID: String) throws {
        guard record.autoRenewProductID != productID else { return }
        var record = record
        record.autoRenewProductID = productID
        try save(record, notifying: .renewalPreferenceChanged(backToCurrent: true))
    }

    /// The old transaction is marked upgraded and the new one starts now, on the same original ID, in one write.
    private func upgrade(_ record: inout SubscriptionRecord, to item: CatalogProduct, options: PurchaseOptions,
                         offer: SubscriptionOffer?, kind: Ledger.EventKind, pending: Int64?) throws -> PurchaseOutcome {
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
        guard let jws = try commit(payload, kind: kind, replacing: pending != nil, upgrade: true) else { throw StoreFailure.storeKit(.unknown) }
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
        record.take(payload, offer: carriedOffer(payload))
        try ledger.save(record)
        return (existing?.state, record)
    }

    /// The pay-as-you-go offer a transaction begins, to carry on to its renewals.
    func carriedOffer(_ payload: TransactionPayload) -> SubscriptionRecord.CarriedOffer? {
        guard let type = payload.offerType, let offer = offerDefinition(type: type, id: payload.offerID, productID: payload.productID,
                                                                        plan: payload.billingPlanType ?? .upFront) else {
            return nil
        }
        return SubscriptionRecord.CarriedOffer(after: payload, offer: offer)
    }

    /// The catalog's definition of an offer a subscription carries to its next renewals.
    nonisolated func offerDefinition(_ carried: SubscriptionRecord.CarriedOffer, productID: String, plan: BillingPlanType?) -> SubscriptionOffer? {
        offerDefinition(type: carried.type, id: carried.id, productID: productID, plan: plan ?? .upFront)
    }

    /// An offer by its type and ID; an introductory offer is the billing plan's own.
    nonisolated func offerDefinition(type: OfferType, id: String?, productID: String, plan: BillingPlanType) -> SubscriptionOffer? {
        let terms = catalog.product(productID)?.subscription
        switch type {
        case .introductory: return terms?.introductoryOffer(on: plan)
        case .promotional: return terms?.promotionalOffers.first { $0.id == id }
        case .winBack: return terms?.winBackOffers.first { $0.id == id }
        case .code: return catalog.offerCodes.first { $0.productID == productID && $0.referenceName == id }?.offer
        }
    }

    /// The billing plan a subscription renews on: its own while the product it renews to sells that
    /// plan, else up front; nil when that product has no billing plans.
    nonisolated func renewalPlan(_ record: SubscriptionRecord, to item: CatalogProduct?) -> BillingPlanType? {
        guard let terms = item?.subscription, !terms.billingPlans.isEmpty else { return nil }
        return record.billingPlan.flatMap { terms.billingPlan($0)?.type } ?? .upFront
    }

    // MARK: Time

    /// The renewal rules under the clock's rate and the tester's billing switches.
    var schedule: RenewalSchedule {
        RenewalSchedule(rate: clock.rate, billingRetryOnRenewal: currentSettings.billingRetryOnRenewal, gracePeriod: currentSettings.gracePeriod)
    }

    public func advanceTime(by period: Period) throws {
        if let problem = SupportedDates.problem(advancing: now(), by: period) { throw TestControlError(problem) }
        // Under a time rate, the period's compressed length: time travel moves the same clock renewals follow.
        clock.advance(to: schedule.end(of: period, from: now()), real: time.now())
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
        let now = now(), schedule = schedule
        // Most calls find nothing due: the earliest due date says so without looking at every record.
        guard let next = read(nil, ledger.nextDueDate), next <= now else { return }
        let due = read([]) { try ledger.subscriptions() }.filter { schedule.isDue($0, at: now) }
        guard !due.isEmpty else { return }
        // One write transaction for the whole catch-up: a simulated year commits once, not per renewal.
        try? ledger.batch {
            let pipeline = SigningPipeline(identity.signer)
            signingPipeline = pipeline
            defer { signingPipeline = nil }
            batchNotifications = []
            defer { batchNotifications = [] }
            for record in due { try process(record, until: now) }
            for signed in try pipeline.finish() {
                // Broken as `asSigned` breaks a whole token's signature, while invalid signatures are on.
                ledger.setSignature(String(asSigned("." + signed.signature).dropFirst()), for: signed.id)
            }
            let renewals = pipeline.renderedTexts()
            for (slot, var row) in batchNotifications.enumerated() {
                row.renewalPayload = renewals[slot] ?? row.renewalPayload
                try ledger.insertNotification(row)
            }
        }
        pumpEvents()
    }

    /// Takes one subscription through every step that is due (see `RenewalSchedule.step`).
    func process(_ start: SubscriptionRecord, until now: Date) throws {
        var record = start
        while let step = schedule.step(record, period: catalog.product(record.productID)?.subscription?.period, at: now) {
            switch step {
            case .renew(let date):
                record = try renew(record, at: date)
            case .change(let next, let settled):
                try save(next, from: record)
                record = next
                if settled { return }
            }
        }
    }

    /// A renewal: a new transaction on the same original ID, for the auto-renew product (a pending
    /// downgrade or crossgrade takes effect here), starting when the last period ended.
    func renew(_ record: SubscriptionRecord, at date: Date) throws -> SubscriptionRecord {
        guard let item = catalog.product(record.autoRenewProductID), let last = try ledger.payload(record.latestTransactionID) else {
            var expired = record
            expired.state = .expired
            expired.expirationReason = .productUnavailable
            try save(expired, from: record)
            return expired
        }
        let plan = renewalPlan(record, to: item) ?? .upFront
        let listed = item.price(in: last.storefront, on: plan) ?? item.price(in: currentStorefront.code, on: plan) ?? 0
        // An agreed price increase renews at its new price (one not yet answered renews at the old one).
        let increased = record.priceIncrease == .notYetResponded ? nil : record.renewalPrice(catalog: nil)
        let price = increased.map { Decimal($0) / 1000 } ?? listed
        var payload = try newPayload(item, price: price, options: PurchaseOptions(billingPlan: plan), offer: nil, originalID: record.originalID,
                                     originalDate: last.originalPurchaseDate, purchaseDate: date, reason: .renewal)
        payload.ownership = last.ownership
        payload.appAccountToken = last.appAccountToken
        // The monthly plan renews every month, each a payment of its 12-month commitment; after the 12th, a new commitment starts.
        if payload.commitment != nil, let next = last.commitment?.next { payload.commitment = next }
        let renewal = schedule.renewal(of: record, to: item.id, period: item.subscription!.billingPeriod(on: plan), at: date)
        payload.expirationDate = renewal.expirationDate
        if let discount = renewal.discount {
            let definition = offerDefinition(discount, productID: item.id, plan: plan)
            payload.offerType = discount.type
            payload.offerID = discount.id
            payload.offerPaymentMode = definition?.paymentMode ?? .payAsYouGo
            payload.offerPeriod = definition?.duration ?? discount.period
            payload.priceMilliunits = discount.priceMilliunits
        }
        // What the renewal leaves of the offer is saved first, so its notification's renewal info says it.
        var next = record
        next.offer = renewal.offerLeft
        next.anchorDay = renewal.anchorDay
        if next.priceIncrease == .agreed { next.priceIncrease = nil }
        return try ledger.db.transaction {
            try ledger.save(next)
            try commit(payload, kind: .update)
            return try ledger.subscription(record.originalID) ?? next
        }
    }

    // MARK: Subscription test controls

    /// The subscription a tester control acts on: the group's current one (a product of the group
    /// names it, whichever plan is current), a family member's when only theirs is for `productID`.
    /// `active`: the control needs a subscription that has not ended, and says so when it has.
    func record(forProduct productID: String, active: Bool = false) throws -> SubscriptionRecord {
        catchUp()
        guard let group = catalog.product(productID)?.subscription?.groupID else {
            throw TestControlError("\(productID) is not an auto-renewable subscription")
        }
        let familyOnly = try ledger.subscriptions(group: group).filter { $0.familyShared && $0.productID == productID }
        let own = groupSubscription(group)
        guard let record = own.flatMap({ $0.productID == productID || familyOnly.isEmpty ? $0 : nil }) ?? familyOnly.last else {
            throw TestControlError("no subscription in \(productID)'s group")
        }
        if active, !record.isActive {
            throw TestControlError("the subscription to \(record.productID) is \(record.state.rawValue): buy it again first")
        }
        return record
    }

    public func expireSubscription(productID: String) throws {
        let old = try record(forProduct: productID, active: true)
        var record = old
        record.expire(at: now())
        try save(record, from: old)
    }

    public func forceRenewal(productID: String) throws {
        let record = try record(forProduct: productID, active: true)
        _ = try renew(record, at: now())
    }

    public func setAutoRenew(productID: String, enabled: Bool) throws {
        var record = try record(forProduct: productID, active: true)
        guard record.willAutoRenew != enabled else {
            throw TestControlError("auto-renew is already \(enabled ? "on" : "off") for \(record.productID)")
        }
        record.willAutoRenew = enabled
        try save(record, notifying: .autoRenewChanged(enabled: enabled))
    }

    public func requestPriceIncrease(productID: String) throws {
        var record = try record(forProduct: productID, active: true)
        guard record.priceIncrease != .notYetResponded else {
            throw TestControlError("a price increase for \(record.productID) is already waiting for consent")
        }
        record.priceIncrease = .notYetResponded
        let last = try ledger.row(record.latestTransactionID)
        let storefront = last?.payload.storefront ?? currentStorefront.code
        let listed = catalog.product(record.productID)?.price(in: storefront, on: record.billingPlan ?? .upFront)
        let current = record.renewalPrice(catalog: listed.map(Self.milliunits)) ?? 0
        record.increasedPriceMilliunits = SubscriptionRecord.increased(current, currency: last?.payload.currency ?? currentStorefront.currency)
        try save(record, notifying: .priceIncreaseRequested)
    }

    public func respondToPriceIncrease(productID: String, agree: Bool) throws {
        var record = try record(forProduct: productID)
        guard record.priceIncrease == .notYetResponded else { throw TestControlError("no price increase is waiting for consent") }
        record.priceIncrease = agree ? .agreed : .declined
        if agree { try save(record, notifying: .priceIncreaseAccepted) } else { try ledger.save(record) }
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

    /// The tokens of transactions `ids`, read from the ledger only where it moved since they were last
    /// read: a refresh reads the subscriptions' tokens for entitlements and again for statuses, and
    /// reading them twice was a fifth of it. While the stamp stands still, no row changed.
    func tokens(_ ids: [Int64]) throws -> [Int64: String] {
        guard let stamp = try ledger.stamp() else { return try ledger.jws(ids) }
        var tokens = tokensRead?.stamp == stamp ? tokensRead!.tokens : [:]
        let unread = ids.filter { tokens[$0] == nil }
        if !unread.isEmpty { tokens.merge(try ledger.jws(unread)) { _, read in read } }
        tokensRead = (stamp, tokens)
        return tokens
    }

    public func introOfferEligibility(groupIDs: [String]) async -> [String: Bool] {
        let history = read([:]) { try ledger.subscriptionsByGroup() }
        return Dictionary(uniqueKeysWithValues: groupIDs.map { ($0, OfferEligibility(history: history[$0] ?? []).isEligibleForIntroOffer) })
    }

    /// The subscription's renewal info, signed again only when what it says has changed: signing
    /// every subscription's at every refresh was most of a refresh with many subscriptions. Its
    /// `signedDate` says when it was signed, as with any signed data handed out again.
    /// What it says follows from the record, the storefront and the environment alone: while they are
    /// the same, it is not even built again (building a thousand was a fifth of a refresh).
    func signedRenewalInfo(_ record: SubscriptionRecord) throws -> String {
        let signed = signedRenewals[record.originalID]
        if let signed, signed.record == record, signed.storefront == currentStorefront, signed.environment == currentSettings.environment {
            return signed.jws
        }
        var info = renewalInfo(record)
        if let signed {
            let now = info.signedDate
            info.signedDate = signed.info.signedDate
            if info == signed.info {
                signedRenewals[record.originalID] = SignedRenewal(info, signed.jws, record, currentStorefront, currentSettings.environment)
                return signed.jws
            }
            info.signedDate = now
        }
        let jws = try sign(info.json)
        signedRenewals[record.originalID] = SignedRenewal(info, jws, record, currentStorefront, currentSettings.environment)
        return jws
    }

    /// A renewal info as signed, and what it was made from. A class: looking one up for each of a
    /// thousand subscriptions at every refresh copied every field of a struct.
    final class SignedRenewal {
        let info: RenewalInfoPayload
        let jws: String
        let record: SubscriptionRecord
        let storefront: Storefront
        let environment: StoreEnvironment

        init(_ info: RenewalInfoPayload, _ jws: String, _ record: SubscriptionRecord, _ storefront: Storefront, _ environment: StoreEnvironment) {
            (self.info, self.jws, self.record, self.storefront, self.environment) = (info, jws, record, storefront, environment)
        }
    }

    func renewalInfo(_ record: SubscriptionRecord) -> RenewalInfoPayload {
        renewalInfo(record, storefront: currentStorefront, environment: currentSettings.environment, at: now())
    }

    /// The same, in `storefront` and `environment` at `date`: made off the actor in a catch-up (see `enqueueNotification`).
    nonisolated func renewalInfo(_ record: SubscriptionRecord, storefront: Storefront, environment: StoreEnvironment,
                                 at date: Date) -> RenewalInfoPayload {
        let next = catalog.product(record.autoRenewProductID)
        let plan = renewalPlan(record, to: next)
        var info = record.renewalInfo(next: (next?.price(in: storefront.code, on: plan ?? .upFront).map(Self.milliunits),
                                             next?.subscription?.winBackOffers.filter(\.isEligible).compactMap(\.id) ?? []),
                                      currency: storefront.currency, signedDate: date, appTransactionID: appTransactionID)
        info.environment = environment.rawValue
        info.renewalBillingPlanType = plan
        // The next period's offer, when one discounts it (intro period 2 of 3, a redeemed code, …), and its price.
        if let offer = record.offer, info.willAutoRenew, let definition = offerDefinition(offer, productID: record.autoRenewProductID, plan: plan) {
            info.offerType = offer.type
            info.offerID = offer.id
            info.offerPaymentMode = definition.paymentMode
            info.offerPeriod = definition.duration
            info.renewalPriceMilliunits = offer.priceMilliunits
        }
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
