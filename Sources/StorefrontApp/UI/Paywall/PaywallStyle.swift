import StoreCore

/// `SubscriptionStoreView`'s control styles (`.subscriptionStoreControlStyle`): how the plans are offered.
enum PaywallStyle: String, CaseIterable, Sendable {
    case automatic, picker, buttons, prominentPicker, compactPicker

    /// What `.automatic` is on iPhone: a picker with one Subscribe button.
    var resolved: PaywallStyle { self == .automatic ? .picker : self }

    /// The next style, for the key that switches them live.
    var next: PaywallStyle { Self.allCases[(Self.allCases.firstIndex(of: self)! + 1) % Self.allCases.count] }

    /// As Swift names it: `.prominentPicker`.
    var title: String { "." + rawValue }
}

/// `ProductView`'s styles (`.productViewStyle`): how much room one product's card takes.
enum ProductCardStyle: String, CaseIterable, Sendable {
    case regular, compact, large

    var next: ProductCardStyle { Self.allCases[(Self.allCases.firstIndex(of: self)! + 1) % Self.allCases.count] }
    var title: String { "." + rawValue }
}

/// The kinds of plan change a subscriber is offered, as the App Store times them.
enum PlanChangeKind: Sendable, Equatable {
    case upgrade, downgrade, crossgradeNow, crossgradeAtRenewal

    /// An upgrade (a higher service level; 1 is the highest) starts now, a downgrade at renewal, a
    /// crossgrade now for the same period, else at renewal: the store's rule (`PlanChange`), as the customer is told it.
    init(from current: SubscriptionTerms, to new: SubscriptionTerms) {
        self = if new.level != current.level { new.level < current.level ? .upgrade : .downgrade }
            else { new.period == current.period ? .crossgradeNow : .crossgradeAtRenewal }
    }
}
