import Foundation
import StoreCore

/// Renewals over the store clock: which subscriptions are due, the steps each takes through what
/// fell due (renewals, grace, billing retry, expiry; see `RenewalSchedule`), and what each renewal
/// charges and buys. The store writes what it decides to the ledger.
struct RenewalScheduler {
    var schedule: RenewalSchedule
    var terms: RenewalTerms

    /// The subscriptions among `records` with something due at `now`.
    func due(_ records: [SubscriptionRecord], at now: Date) -> [SubscriptionRecord] {
        records.filter { schedule.isDue($0, at: now) }
    }

    /// Takes one subscription through every step due by `now`, in order: `renew` makes the renewal at
    /// a date and gives the record after it; `change` saves a new state (`next`, from `old`).
    func process(_ start: SubscriptionRecord, until now: Date, renew: (SubscriptionRecord, Date) throws -> SubscriptionRecord,
                 change: (_ next: SubscriptionRecord, _ old: SubscriptionRecord) throws -> Void) rethrows {
        var record = start
        while let step = schedule.step(record, period: terms.catalog.product(record.productID)?.subscription?.period, at: now) {
            switch step {
            case .renew(let date):
                record = try renew(record, date)
            case .change(let next, let settled):
                try change(next, record)
                record = next
                if settled { return }
            }
        }
    }

    /// What a renewal of `record` to `item` on `plan` is charged: an agreed price increase's new price
    /// (one not yet answered renews at the old one), else the price listed where it was last bought
    /// (`storefront`: where the customer is now, when it is not sold there).
    func price(of record: SubscriptionRecord, to item: CatalogProduct, on plan: BillingPlanType, lastBoughtIn last: String,
               storefront: String) -> Decimal {
        let listed = item.price(in: last, on: plan) ?? item.price(in: storefront, on: plan) ?? 0
        let increased = record.priceIncrease == .notYetResponded ? nil : record.renewalPrice(catalog: nil)
        return increased.map { Decimal($0) / 1000 } ?? listed
    }

    /// A renewal at `date`: `payload` (a new transaction for `item` on `plan`, on the record's original
    /// transaction) made into the renewal of `last`, and the record as the renewal leaves it.
    func renewal(of record: SubscriptionRecord, last: TransactionPayload, to item: CatalogProduct, on plan: BillingPlanType,
                 payload new: TransactionPayload, at date: Date) -> (payload: TransactionPayload, record: SubscriptionRecord) {
        var payload = new
        payload.ownership = last.ownership
        // The subscription's token: Set App Account Token may have changed it since the last transaction.
        payload.appAccountToken = record.appAccountToken ?? last.appAccountToken
        // The monthly plan renews every month, each a payment of its 12-month commitment; after the 12th, a new commitment starts.
        if payload.commitment != nil, let next = last.commitment?.next { payload.commitment = next }
        let renewal = schedule.renewal(of: record, to: item.id, period: item.subscription!.billingPeriod(on: plan), at: date)
        payload.expirationDate = renewal.expirationDate
        if let discount = renewal.discount {
            let definition = terms.offerDefinition(discount, productID: item.id, plan: plan)
            payload.offerType = discount.type
            payload.offerID = discount.id
            payload.offerPaymentMode = definition?.paymentMode ?? .payAsYouGo
            payload.offerPeriod = definition?.duration ?? discount.period
            payload.priceMilliunits = discount.priceMilliunits
        }
        var next = record
        next.offer = renewal.offerLeft
        next.anchorDay = renewal.anchorDay
        next.renewals = (record.renewals ?? 0) + 1
        if next.priceIncrease == .agreed { next.priceIncrease = nil }
        return (payload, next)
    }
}
