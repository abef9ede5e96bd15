import StoreCore

/// Moving to another subscription in the same group, as the App Store does it: an upgrade (to a
/// higher service level; 1 is the highest) takes effect at once; a downgrade at the next renewal;
/// a crossgrade (same level) at once when the period is the same, else at the next renewal.
enum PlanChange: Equatable {
    /// Takes effect now: the current transaction is marked upgraded and a new one starts.
    case immediate
    /// Takes effect at the next renewal: only the auto-renew product changes now.
    case atRenewal
    /// The customer is already subscribed to the product.
    case alreadySubscribed

    init(from current: (productID: String, terms: SubscriptionTerms), to new: (productID: String, terms: SubscriptionTerms)) {
        self = if current.productID == new.productID { .alreadySubscribed }
            else if new.terms.level != current.terms.level { new.terms.level < current.terms.level ? .immediate : .atRenewal }
            else { new.terms.period == current.terms.period ? .immediate : .atRenewal }
    }
}
